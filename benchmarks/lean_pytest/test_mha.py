"""The classic from-scratch write-up's checks for causal multi-head attention: shapes, rows sum to one, prefix."""

import numpy as np


def _problem(T=6):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, T, 16))
    Ws = [rng.normal(size=(16, 16)) / 4 for _ in range(4)]
    return x, Ws


def test_shapes_and_rows_sum_to_one(solution):
    x, Ws = _problem()
    y, w = solution.causal_mha(x, *Ws, 4)
    assert y.shape == (2, 6, 16) and w.shape == (2, 4, 6, 6)
    np.testing.assert_allclose(w.sum(axis=-1), 1.0)


def test_prefix_does_not_see_the_future(solution):
    x, Ws = _problem()
    y, _ = solution.causal_mha(x, *Ws, 4)
    y_cut, _ = solution.causal_mha(x[:, :3], *Ws, 4)
    np.testing.assert_allclose(y_cut, y[:, :3], rtol=1e-6, atol=1e-9)
