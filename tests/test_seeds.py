"""No correct solution's verdict depends on the seed, in any exercise.

The input ladders draw long sequences, long caches, rows whose maximum sits at a random key, exact ties and huge
integer sizes from the seed. Each correct corpus file is graded at three of the seeds 0..19, turn by turn, so that
together the files of an exercise cover all twenty; ATTNPREP_ALL_SEEDS=1 grades every correct file at all twenty
(the full check: about 200 files times 20 seeds, some twenty minutes on two cores).
"""

import os

import pytest
from corpus import cases, grade_case, verdict

SLUGS = sorted({c.slug for c in cases()})
SEEDS = 20
PER_FILE = SEEDS if os.environ.get("ATTNPREP_ALL_SEEDS") == "1" else 3


def _runs():
    runs = []
    for slug in SLUGS:
        correct = [c for c in cases() if c.slug == slug and c.passes]
        for i, case in enumerate(correct):
            seeds = sorted({(i * PER_FILE + j) % SEEDS for j in range(PER_FILE)})
            runs += [(case, seed) for seed in seeds]
    return runs


RUNS = _runs()


@pytest.mark.parametrize(("case", "seed"), RUNS, ids=[f"{c.id}-seed{s}" for c, s in RUNS])
def test_correct_solution_passes_at_seed(case, seed):
    problem = verdict(case, grade_case(case, seed=seed))
    assert problem is None, f"seed {seed}: {problem}"


def test_every_seed_is_covered():
    for slug in SLUGS:
        files = sum(1 for c in cases() if c.slug == slug and c.passes)
        covered = {s for c, s in RUNS if c.slug == slug}
        assert covered == set(range(min(SEEDS, files * PER_FILE))), f"{slug}: seeds {sorted(covered)}"
