"""No correct solution of causal, attention, window, mha or gqa changes verdict with the seed.

Every correct corpus file of these exercises is graded at seeds 1..19 (seed 0 is test_corpus's): the probes the
ladders draw (rows peaked at random keys, the long rungs) stay inside the documented input range, so a correct
solution must pass at every one of them.
"""

import pytest
from corpus import cases, grade_case, verdict

SLUGS = ("causal", "attention", "window", "mha", "gqa")
SEEDS = range(1, 20)
CORRECT = [case for case in cases() if case.slug in SLUGS and case.passes]


@pytest.mark.parametrize("case", CORRECT, ids=[case.id for case in CORRECT])
def test_correct_solution_passes_at_every_seed(case):
    for seed in SEEDS:
        problem = verdict(case, grade_case(case, seed=seed))
        assert problem is None, f"seed {seed}: {problem}"
