"""The ladders-c generators: scores chosen outright, where a causal row may peak, cache lengths, huge counts."""

import numpy as np

from attnprep import ladders


def test_scores_as_qk_reproduces_the_scores():
    rng = np.random.default_rng(0)
    scores = ladders.peaked_rows(rng, (5, 7), 1e4)
    q, k = ladders.scores_as_qk(scores)
    assert q.shape == (5, 10) and k.shape == (7, 10)
    np.testing.assert_allclose(q @ k.T / np.sqrt(q.shape[1]), scores, rtol=1e-15, atol=1e-10)


def test_causal_allowed_is_the_visible_part():
    assert ladders.causal_allowed(3).tolist() == [[True, False, False], [True, True, False], [True, True, True]]
    # a query block at the end of a longer key sequence sees every earlier key
    assert ladders.causal_allowed(2, 4).tolist() == [[True, True, True, False], [True, True, True, True]]


def test_peaked_rows_peak_only_where_allowed():
    rng = np.random.default_rng(1)
    allowed = ladders.causal_allowed(9)
    x = ladders.peaked_rows(rng, (4, 9, 9), 1e4, allowed=allowed)
    peaks = ladders.peak_positions(x)
    assert allowed[np.arange(9), peaks].all()
    assert len(set(peaks.ravel().tolist())) > 3  # not always the diagonal, the first or the last key


def test_cache_lengths_cross_256_and_2048():
    rungs = ladders.cache_lengths()
    assert rungs[0].label == "an empty cache (cache=None)" and rungs[0].value == 0
    assert any(r.value > 256 for r in rungs) and any(r.value > 2048 for r in rungs)
    assert any("2,050" in r.label for r in rungs) and any(r.value > 8192 for r in rungs)


def test_huge_counts_lie_just_past_each_limit():
    rng = np.random.default_rng(2)
    for per_unit in (1, 65_536, 3 * 5 * 7):
        rungs = ladders.huge_counts(rng, per_unit=per_unit)
        for rung, (limit, _) in zip(rungs, ladders.EXACT_LIMITS, strict=True):
            total = rung.value * per_unit
            assert limit < total < limit + 3_000 * per_unit
            assert total < 2**62  # np.int64 still holds it
            assert rung.value % 2 == 1
        assert "2**53" in rungs[1].label


def test_wrap_limits_and_wrapped_match_numpy():
    rng = np.random.default_rng(3)
    per_unit = 2 * 32 * 8 * 128 * 16  # bits per token of the 8B model at 16 bits
    rungs = ladders.huge_counts(rng, per_unit=per_unit, limits=ladders.WRAP_LIMITS)
    assert [r.label.split(",")[0] for r in rungs] == ["a total past 2**63", "a total past 2**64"]
    for rung, (limit, _) in zip(rungs, ladders.WRAP_LIMITS, strict=True):
        bits = rung.value * per_unit
        assert limit < bits and rung.value < 2**63 and -(-bits // 8) < 2**63  # only the bit count overflows
        signed, unsigned = ladders.wrapped(bits)
        with np.errstate(over="ignore"):
            assert int(np.int64(rung.value) * np.int64(per_unit)) == signed
            assert int(np.uint64(rung.value) * np.uint64(per_unit)) == unsigned
    assert ladders.wrapped(5) == (5, 5) and ladders.wrapped(2**64 - 1) == (-1, 2**64 - 1)
