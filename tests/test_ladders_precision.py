"""The ladders of inputs float32 cannot hold keep their promises at every seed."""

import numpy as np
import pytest

from attnprep.ladders import F32_INTEGER_LIMIT, off_grid_factors, past_f32_integers


@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize("n", [1, 2, 7])
def test_past_f32_integers_are_odd_distinct_and_moved_by_a_float32_cast(seed, n):
    values = past_f32_integers(np.random.default_rng(seed), n)
    assert values.dtype == np.int64 and values.shape == (n,)
    assert len(set(values.tolist())) == n
    assert F32_INTEGER_LIMIT + 1 in values.tolist()
    assert np.all(values % 2 == 1) and np.all(values > F32_INTEGER_LIMIT) and np.all(values < 2 * F32_INTEGER_LIMIT)
    assert np.all(np.abs(values.astype(np.float32).astype(np.int64) - values) == 1)  # every one off by one
    assert np.array_equal(values.astype(np.float64).astype(np.int64), values)  # float64 and int32 hold them
    assert np.array_equal(values.astype(np.int32).astype(np.int64), values)


@pytest.mark.parametrize("seed", range(20))
def test_off_grid_factors_give_the_product_and_show_a_float32_cast_of_either(seed):
    rng = np.random.default_rng(seed)
    target = rng.uniform(200.0, 900.0, size=(9, 1)) + rng.uniform(-3.0, 3.0, size=(9, 6))
    a, b = off_grid_factors(rng, target, 10)
    assert a.shape == (9, 10) and b.shape == (10, 6)
    np.testing.assert_allclose(a @ b, target, rtol=1e-12)
    for x in (a, b):
        assert not np.any(x.astype(np.float32).astype(np.float64) == x)  # no entry on float32's grid
    r32 = lambda m: m.astype(np.float32).astype(np.float64)  # noqa: E731
    for moved in (r32(a) @ b, a @ r32(b)):
        # rounding either factor moves the differences between columns (what a softmax sees), not only a shift
        spread = np.ptp((moved - a @ b) - (moved - a @ b).mean(axis=1, keepdims=True), axis=1)
        assert np.all(spread > 1e-7)


def test_off_grid_factors_need_enough_inner_size():
    with pytest.raises(ValueError):
        off_grid_factors(np.random.default_rng(0), np.ones((3, 5)), 4)
