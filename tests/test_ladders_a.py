"""The ladders-a generators keep the properties the checks rest on, at every seed."""

import numpy as np
import pytest

from attnprep.ladders import beyond_f32, f32_nudged, spiky_rows, to_edge


@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize("shape", [(9,), (5, 9), (2, 3, 9), (4, 3)])
def test_spiky_rows_defeat_every_stand_in_for_the_row_maximum(seed, shape):
    x = spiky_rows(np.random.default_rng(seed), shape)
    rows = x.reshape(-1, shape[-1])
    assert np.abs(x).max() <= 1e4  # the documented range
    assert np.array_equal(x, x.astype(np.float32).astype(np.float64))  # on float32's grid
    top = rows.max(axis=1)
    at = rows.argmax(axis=1)
    assert ((at > 0) & (at < shape[-1] - 1)).all()  # never the first or the last entry
    assert (np.sort(rows, axis=1)[:, -2] < top).all()  # a strict maximum
    assert (np.abs(top) >= 2500).all()  # no naive exp survives
    for stand_in in (rows[:, 0], rows[:, -1], rows.mean(axis=1), rows.min(axis=1), np.median(rows, axis=1)):
        assert (top - stand_in > 745).all()  # exp(max - stand_in) overflows on every row
    if rows.shape[0] > 1:
        assert (top > 0).any() and (top < 0).any()  # one maximum for the whole array underflows some row


def test_f32_nudged_rounds_back_with_one_sign():
    rng = np.random.default_rng(0)
    x = rng.uniform(-8000.0, 8000.0, size=1000)
    up = np.where(rng.random(1000) < 0.5, 1.0, -1.0)
    y = f32_nudged(x, up)
    back = y.astype(np.float32).astype(np.float64)
    assert np.array_equal(back, x.astype(np.float32).astype(np.float64))
    assert (np.sign(y - back) == up).all()


def test_beyond_f32_is_off_the_float32_grid():
    x = beyond_f32(np.random.default_rng(1), 1000, scale=20.0)
    assert (x != x.astype(np.float32).astype(np.float64)).mean() > 0.99


def test_to_edge_reaches_the_edge_and_stops():
    x = np.array([-3.0, 1.5, -np.inf, 0.2])
    assert np.max(x + to_edge(x, 1e4)) == 1e4
    assert np.min((x + to_edge(x, -1e4))[np.isfinite(x)]) == -1e4
