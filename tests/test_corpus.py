"""Every corpus file is judged as its header says: wrong ones caught by the named invariants, correct ones passed."""

import pytest
from corpus import cases, grade_case, verdict

CASES = cases()


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_corpus_case(case):
    problem = verdict(case, grade_case(case))
    assert problem is None, problem


@pytest.mark.parametrize("case", [c for c in CASES if c.passes][:20], ids=lambda c: c.id)
def test_correct_solutions_pass_under_another_seed(case):
    problem = verdict(case, grade_case(case, seed=12345))
    assert problem is None, problem


def test_headers_are_consistent():
    for case in CASES:
        assert not (case.must_fail & case.must_pass), f"{case.id}: an id both must fail and must pass"
        assert not (case.passes and case.must_pass), f"{case.id}: must-pass is for wrong solutions"
