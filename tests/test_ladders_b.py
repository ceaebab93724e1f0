"""The attention-like ladders: peaked scores keep their promises, and long-rung evidence tells numbers apart."""

import numpy as np
import pytest

from attnprep import ladders
from attnprep.grading import Fail


@pytest.mark.parametrize("seed", range(5))
def test_peaked_rows_peak_at_a_random_allowed_key_within_the_range(seed):
    rng = np.random.default_rng(seed)
    t = 40
    allowed = ~np.triu(np.ones((t, t), dtype=bool), k=1)
    q, k, peak = ladders.peaked_qk(rng, (3,), t, t, 4, allowed=allowed)
    scores = q @ np.swapaxes(k, -1, -2) / 2.0
    visible = np.where(allowed, scores, -np.inf)
    assert (np.argmax(visible, axis=-1) == peak).all()
    assert np.abs(scores).max() <= ladders.SCORE_MAGNITUDE * 1.001
    # not the diagonal, the first or the last visible key by construction: each is the peak in few rows only
    rows = np.arange(t)
    assert (peak == rows).mean() < 0.5 and (peak == 0).mean() < 0.5
    # far above the rest of its row where the row has other keys: a shift by the diagonal overflows somewhere
    gap = np.take_along_axis(visible, peak[..., None], -1)[..., 0] - np.diagonal(visible, axis1=-2, axis2=-1)
    assert gap.max() > 709


def test_peaked_self_attention_gives_every_head_the_peaked_scores():
    rng = np.random.default_rng(1)
    x, (W_q, W_k, W_v, W_o), scores = ladders.peaked_self_attention(rng, 2, 12, 10, 4, 4, 2)
    q = (x @ W_q).reshape(2, 12, 4, 4).transpose(0, 2, 1, 3)
    k = (x @ W_k).reshape(2, 12, 2, 4).transpose(0, 2, 1, 3)
    future = np.triu(np.ones((12, 12), dtype=bool), k=1)
    for h in range(4):
        got = np.where(future, -np.inf, q[:, h] @ np.swapaxes(k[:, h // 2], -1, -2) / 2.0)
        np.testing.assert_allclose(got, scores, rtol=1e-12)
    assert np.abs(x @ W_v).max() < 10  # the values stay ordinary


def test_check_close_fast_passes_what_check_close_passes_and_shows_enough_digits():
    want = np.linspace(0.1, 1.0, 50_000)
    assert ladders.check_close_fast(want * (1 + 1e-9), want, "w").shape == want.shape
    got = want.copy()
    got[123] *= 1 + 3e-6
    with pytest.raises(Fail) as exc:
        ladders.check_close_fast(got, want, "w")
    text = str(exc.value)
    assert "entry [123]" in text and "relative error 3e-06" in text
    a, b = text.split(" is ")[1].split(", expected ")
    assert a != b.split(" ")[0]
    nan = want.copy()
    nan[7] = np.nan
    with pytest.raises(Fail, match="entry \\[7\\] is nan"):
        ladders.check_close_fast(nan, want, "w")


def test_meanwhile_returns_the_result_and_reraises():
    assert ladders.meanwhile(sum, [1, 2, 3])() == 6
    with pytest.raises(ZeroDivisionError):
        ladders.meanwhile(lambda: 1 / 0)()


def _sizes_judged(per_pair):
    """The T of each rung up_to_long judges for code that takes per_pair seconds per score."""
    watch, seen = ladders.Stopwatch(), []

    def judge(rung):
        seen.append(rung.value)
        watch.seconds += per_pair * rung.value ** 2  # attention's work grows as T^2

    ladders.up_to_long(judge, watch)
    return seen


def test_up_to_long_judges_fast_code_at_1024_and_slow_code_at_the_longest_rung_that_fits():
    assert _sizes_judged(1e-9) == [ladders.MEDIUM_T, ladders.LONG_T]
    medium, long = _sizes_judged(5e-6)
    assert medium == ladders.MEDIUM_T < long < ladders.LONG_T
    assert 5e-6 * long ** 2 <= ladders.LONG_RUNG_BUDGET_S * 1.01


def test_up_to_long_names_the_rung_that_failed():
    def judge(rung):
        if rung.value > 500:
            raise Fail("wrong")

    with pytest.raises(Fail, match="^at T = 1,031: wrong$"):
        ladders.up_to_long(judge, ladders.Stopwatch())
