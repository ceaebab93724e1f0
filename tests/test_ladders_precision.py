"""The ladders of inputs float32 cannot hold keep their promises at every seed."""

import numpy as np
import pytest

from attnprep.ladders import F32_INTEGER_LIMIT, past_f32_integers


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
