"""What a learner checks by hand for softmax: rows sum to one, a known value, no overflow at large inputs."""

import numpy as np


def test_rows_sum_to_one(solution):
    z = np.random.default_rng(0).normal(size=(4, 7))
    np.testing.assert_allclose(solution.softmax(z).sum(axis=-1), 1.0)


def test_known_value(solution):
    np.testing.assert_allclose(solution.softmax(np.array([1.0, 2.0, 3.0])), [0.09003057, 0.24472847, 0.66524096],
                               rtol=1e-6)


def test_large_inputs_do_not_overflow(solution):
    out = solution.softmax(np.array([1000.0, 1001.0, 1002.0]))
    assert np.isfinite(out).all()
