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


def test_diagnosis_ids_are_known_mistakes():
    """A misspelt id in `diagnosis:` or `not-diagnosis:` would make its check vacuous."""
    from attnprep import catalogue
    from attnprep.diagnosis import mistakes_of
    from attnprep.engine import grader_module

    for case in CASES:
        known = {m.mistake_id for m in mistakes_of(grader_module(catalogue.get(case.slug)))}
        assert not (case.diagnosis | case.not_diagnosis) - known, f"{case.id}: unknown mistake ids"
        assert not (case.diagnosis & case.not_diagnosis), f"{case.id}: a mistake both named and not"
