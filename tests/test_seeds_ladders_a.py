"""Seed independence (issue 12): every correct corpus file of these exercises passes at 20 seeds, none flips."""

import pytest
from corpus import cases, grade_case, verdict

SLUGS = ("softmax", "rmsnorm", "swiglu", "xent", "sampling", "rope")
SEEDS = range(20)
CORRECT = [c for c in cases() if c.slug in SLUGS and c.passes]


@pytest.mark.parametrize("case", CORRECT, ids=[c.id for c in CORRECT])
def test_a_correct_solution_passes_at_every_seed(case):
    flips = {}
    for seed in SEEDS:
        problem = verdict(case, grade_case(case, seed=seed))
        if problem:
            flips[seed] = problem
    assert not flips, f"{case.id} is rejected at seeds {sorted(flips)}: {next(iter(flips.values()))}"
