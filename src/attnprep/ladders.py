"""Input ladders: the shared generators the hidden checks draw their probe inputs from.

A mistake misbehaves on a *class* of inputs: one dimensionality, a size above some threshold, a magnitude,
a row whose maximum is not where the code assumes, a tie, a parameter near the end of its range, a default
left out. Each ladder here walks one such axis, smallest rung first, and every rung carries a label that the
evidence quotes ("at T = 2,048", "for 1-D input (7,)"), so a larger ladder never means vaguer evidence:
`first_failing` reports the smallest rung that fails.

Values are rounded to float32's grid (`f32_exact`) wherever they fit it, so a solution that computes in
float32 starts from exactly the inputs the reference sees.
"""

from __future__ import annotations

import inspect
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, NamedTuple

import numpy as np

from attnprep import precision
from attnprep.grading import ATOL, CURRENT_TALLY, RTOL, CandidateError, Fail, as_float, check_close, tolerance

# -- rungs and how evidence names them ------------------------------------------------------------------


class Rung(NamedTuple):
    """One step of a ladder: what it is called in evidence, and its value (a shape, a size, a parameter)."""

    label: str
    value: Any


def count(n: int) -> str:
    """2048 -> '2,048', for labels."""
    return f"{int(n):,}"


def shape_label(shape: Sequence[int]) -> str:
    dims = ", ".join(count(d) for d in shape)
    return f"{len(shape)}-D input ({dims}{',' if len(shape) == 1 else ''})"


@contextmanager
def at_rung(label: str) -> Iterator[None]:
    """Prefix any Fail raised inside with the rung it happened on: 'at T = 2,048: ...'."""
    try:
        yield
    except Fail as exc:
        raise Fail(f"at {label}: {exc}") from None


def first_failing(rungs: Iterable[Rung], judge: Callable[[Rung], None]) -> None:
    """Run `judge` on every rung in order (smallest first); the first Fail is re-raised naming its rung."""
    for rung in rungs:
        with at_rung(rung.label):
            judge(rung)


# -- precision ------------------------------------------------------------------------------------------

_F32_MAX = float(np.finfo(np.float32).max)
_F32_TINY = float(np.finfo(np.float32).tiny)


def f32_exact(x: Any) -> np.ndarray:
    """x rounded to the nearest float32 wherever it lies in float32's normal range, as float64.

    Entries outside that range (1e-300, 1e300, inf) are kept: they probe float64 on purpose.
    """
    arr = np.asarray(x, dtype=np.float64)
    with np.errstate(all="ignore"):
        fits = np.isfinite(arr) & (np.abs(arr) <= _F32_MAX) & ((np.abs(arr) >= _F32_TINY) | (arr == 0))
        return np.where(fits, arr.astype(np.float32).astype(np.float64), arr)


def normal(rng: np.random.Generator, shape: Sequence[int] | int, scale: float = 1.0) -> np.ndarray:
    """Standard normal draws times `scale`, on float32's grid."""
    return f32_exact(rng.normal(scale=scale, size=shape))


# -- sizes and dimensionality ----------------------------------------------------------------------------

# Small sizes that never coincide with each other, so a size read off the wrong axis cannot pass by accident.
SMALL_SIZES = (1, 3, 5, 7, 11, 13)
# Large sizes: elementwise and softmax-like exercises see at least this many entries in one call.
LARGE_ENTRIES = 65_536
# Sequence lengths for attention-like exercises: one long rung where the time budget allows. A prime, as every
# large size here is odd and no multiple of 5: code that works in chunks of 128, 256 or 1,000 and drops (or
# mishandles) the last, partial chunk is right on every size that is a multiple of its chunk.
LONG_T = 1_031


def _no_round_multiple(n: int) -> int:
    """The first size >= n that is odd and no multiple of 5, so that no power of 2 or 10 divides it."""
    while n % 2 == 0 or n % 5 == 0:
        n += 1
    return n


def sizes(*, small: Sequence[int] = SMALL_SIZES, large: Sequence[int] = ()) -> list[Rung]:
    """Sizes as rungs labelled 'size 7', smallest first."""
    return [Rung(f"size {count(n)}", int(n)) for n in sorted({*small, *large})]


def lengths(*, small: Sequence[int] = (1, 3, 6), long: Sequence[int] = (LONG_T,)) -> list[Rung]:
    """Sequence lengths T as rungs labelled 'T = 1,024', smallest first."""
    return [Rung(f"T = {count(t)}", int(t)) for t in sorted({*small, *long})]


def dims(last: int = 7, *, min_ndim: int = 1, max_ndim: int = 4, lead: Sequence[int] = (2, 3, 5)) -> list[Rung]:
    """Shapes from `min_ndim` to `max_ndim` axes ending in `last`, leading sizes distinct from it and each other."""
    leading = [d for d in lead if d != last] + [d for d in SMALL_SIZES if d not in lead and d != last and d > 1]
    out = []
    for ndim in range(min_ndim, max_ndim + 1):
        shape = (*leading[: ndim - 1], last)
        out.append(Rung(shape_label(shape), shape))
    return out


def large_shape(ndim: int, entries: int = LARGE_ENTRIES) -> tuple[int, ...]:
    """A shape of `ndim` axes with at least `entries` entries whose sizes all differ (the last one largest)."""
    if ndim == 1:
        return (_no_round_multiple(entries),)
    side = int(np.ceil(entries ** (1.0 / ndim)))
    shape = []
    for i in range(ndim):  # distinct, odd and no multiple of 5: a chunked loop cannot end on a whole chunk
        shape.append(_no_round_multiple(max(side - ndim + 1 + 2 * i, shape[-1] + 1 if shape else 3)))
    while int(np.prod(shape)) < entries:
        shape[-1] = _no_round_multiple(shape[-1] + 1)
    return tuple(shape)


def large_dims(*, min_ndim: int = 1, max_ndim: int = 3, entries: int = LARGE_ENTRIES) -> list[Rung]:
    return [Rung(shape_label(s), s) for s in (large_shape(n, entries) for n in range(min_ndim, max_ndim + 1))]


# -- magnitudes and where each row's maximum sits -----------------------------------------------------------

# From barely-there scores to the largest the exercises allow (about 1e4).
MAGNITUDES = (1e-3, 1.0, 1e2, 1e4)


def magnitudes(values: Sequence[float] = MAGNITUDES) -> list[Rung]:
    return [Rung(f"magnitude {v:g}", float(v)) for v in values]


def peaked_rows(rng: np.random.Generator, shape: Sequence[int], magnitude: float, *,
                allowed: np.ndarray | None = None, spread: float = 1.0) -> np.ndarray:
    """Rows (the last axis) whose largest entry sits at a random allowed position, not at the first, the last
    or the diagonal by construction.

    Every row is centred at a random offset of up to +-magnitude (rows at very different scales), its peak sits
    `spread * magnitude` above the row's other entries at most, and the others spread over that whole range, so
    shifting by anything but the row's own maximum (the first entry, the diagonal, the mean, the minimum, one
    global maximum) overflows or underflows at large magnitudes. `allowed` (broadcastable to shape, True =
    may hold the peak) keeps the peak off masked positions.
    """
    shape = tuple(shape)
    n = shape[-1]
    rows = int(np.prod(shape[:-1])) if len(shape) > 1 else 1
    ok = np.ones((rows, n), dtype=bool) if allowed is None else \
        np.broadcast_to(np.asarray(allowed, dtype=bool), shape).reshape(rows, n)
    offset = rng.uniform(-1.0, 1.0, size=(rows, 1)) * magnitude
    below = rng.uniform(0.0, 1.0, size=(rows, n)) * spread * magnitude
    x = offset - below
    for r in range(rows):
        where = np.flatnonzero(ok[r])
        if where.size:
            x[r, int(rng.choice(where))] = offset[r, 0] + 0.05 * spread * magnitude  # the row's strict maximum
    return f32_exact(x.reshape(shape))


def peak_positions(x: np.ndarray) -> np.ndarray:
    """Where each row's maximum sits (for evidence: 'the maximum of row 2 sits at key 4')."""
    return np.argmax(np.asarray(x), axis=-1)


# -- norms: a mean far larger than the spread --------------------------------------------------------------

MEAN_TO_SPREAD = (0.0, 1.0, 1e2, 1e4, 1e8)


def offset_rows(rng: np.random.Generator, shape: Sequence[int], ratio: float, spread: float = 1.0) -> np.ndarray:
    """Rows (last axis) with mean about `ratio * spread` and standard deviation about `spread`.

    At ratio 1e8 a one-pass variance E[x^2] - E[x]^2 loses every digit, where the two-pass one does not.
    """
    shape = tuple(shape)
    mean = ratio * spread * rng.choice([-1.0, 1.0], size=(*shape[:-1], 1))
    return mean + rng.normal(scale=spread, size=shape)


def mean_to_spread(values: Sequence[float] = MEAN_TO_SPREAD) -> list[Rung]:
    return [Rung(f"mean {v:g} times the spread", float(v)) for v in values]


# -- parameters: sweeps, ties, exact thresholds ------------------------------------------------------------

# Temperatures across (0, 2]: very small ones (not greedy: only 0 is), around 1, and the top of the range.
TEMPERATURES = (1e-3, 0.01, 0.03, 0.07, 0.15, 0.3, 0.6, 0.9, 1.0, 1.3, 2.0)
# top_p across (0, 1], near both ends included.
TOP_PS = (0.01, 0.1, 0.3, 0.5, 0.75, 0.9, 0.95, 0.98, 0.99, 0.995, 0.999, 1.0)


def temperatures(values: Sequence[float] = TEMPERATURES) -> list[Rung]:
    return [Rung(f"temperature {v:g}", float(v)) for v in values]


def top_ps(values: Sequence[float] = TOP_PS) -> list[Rung]:
    return [Rung(f"top_p {v:g}", float(v)) for v in values]


def dyadic_probs(n: int) -> np.ndarray:
    """Descending probabilities 1/2, 1/4, ..., with the last two equal: every cumulative sum is exact in binary,
    so a top_p set equal to one of them tests `>=` against `>` without rounding in the way."""
    p = 0.5 ** np.arange(1, n + 1, dtype=np.float64)
    p[-1] = p[-2]
    return p


def exact_thresholds(p: np.ndarray) -> list[float]:
    """The cumulative sums of the descending probabilities `p`, each exactly representable when p is dyadic."""
    return [float(c) for c in np.cumsum(np.sort(np.asarray(p))[::-1])[:-1]]


def tied_logits(rng: np.random.Generator, v: int, k: int) -> np.ndarray:
    """Logits of size v where the k-th and (k+1)-th largest are exactly equal (a tie at the top-k boundary)."""
    x = np.sort(rng.normal(size=v))[::-1].copy()
    x[k] = x[k - 1]
    perm = rng.permutation(v)
    return f32_exact(x[perm])


# -- documented defaults -----------------------------------------------------------------------------------

def defaults_of(fn: Callable) -> dict[str, Any]:
    """The parameters of `fn` (the reference) that have a default, and the defaults."""
    return {name: p.default for name, p in inspect.signature(fn).parameters.items()
            if p.default is not inspect.Parameter.empty}


def without_defaults(fn: Callable, kwargs: dict[str, Any]) -> dict[str, Any]:
    """`kwargs` less every argument equal to `fn`'s documented default, so the call judges the default itself."""
    defaults = defaults_of(fn)
    return {k: v for k, v in kwargs.items() if not (k in defaults and _same_value(v, defaults[k]))}


def _same_value(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is b
    try:
        return bool(a == b) and type(a) is type(b)
    except (TypeError, ValueError):
        return False


# -- ladders-a: rows whose maximum is far from any stand-in, digits beyond float32 --------------------------

def spiky_rows(rng: np.random.Generator, shape: Sequence[int], magnitude: float = 1e4, *, near: int = 2,
               gap: float = 1_000.0) -> np.ndarray:
    """Rows (the last axis) that only a shift by the row's own maximum keeps finite, within +-magnitude.

    Every row's maximum sits at a random position, never the first or the last when the row has three entries
    or more; `near` other entries lie within 8 of it (so the result is not a one-hot), and every other one, the
    first and the last included, lies `gap` to magnitude / 2 below it. The maxima are +-magnitude / 4 to
    +-magnitude / 2, of alternating sign over the rows in a random order, so a shift by the first or the last
    entry, the mean, the minimum, the largest magnitude or one maximum for the whole array overflows or
    underflows to 0/0 on every row (not on some rows at some seeds), and no naive exp survives. Every entry
    stays within [-magnitude, magnitude] (the documented range) and on float32's grid.
    """
    shape = tuple(shape)
    n = shape[-1]
    rows = int(np.prod(shape[:-1])) if len(shape) > 1 else 1
    signs = np.where(np.arange(rows) % 2 == 0, 1.0, -1.0) * rng.choice([-1.0, 1.0])
    peak = rng.permutation(signs) * rng.uniform(0.25, 0.5, size=rows) * magnitude
    x = peak[:, None] - rng.uniform(gap, max(gap, magnitude / 2), size=(rows, n))
    inner = np.arange(1, n - 1) if n >= 3 else np.arange(n)
    # Each row's inner positions in a random order (one draw for all rows, not a loop: 65,536 entries in rows of
    # 7 are 9,362 rows): the first is the maximum, the next `near` its close neighbours.
    order = inner[np.argsort(rng.random((rows, len(inner))), axis=1)]
    row = np.arange(rows)[:, None]
    close = order[:, 1:1 + near]
    x[row, close] = peak[:, None] - rng.uniform(0.5, 8.0, size=close.shape)
    x[np.arange(rows), order[:, 0]] = peak
    return f32_exact(x.reshape(shape))


def beyond_f32(rng: np.random.Generator, shape: Sequence[int] | int, scale: float = 1.0,
               offset: float = 0.0) -> np.ndarray:
    """Normal draws times `scale` plus `offset`, deliberately NOT on float32's grid.

    For the rungs that must catch float32 arithmetic in a float64 result (a cast above some size, say): rounding
    such inputs to float32 moves them by up to 6e-8 of their size, which the conditioning of the problem (scores
    of tens, means far above the spread) makes visible at rtol 1e-6.
    """
    return offset + rng.normal(scale=scale, size=shape)


def f32_nudged(x: Any, direction: Any) -> np.ndarray:
    """x moved 0.4 of a float32 spacing off float32's grid, up where `direction` is +1 and down where it is -1.

    Rounding the result to float32 moves every entry back by the same 0.4 spacing in the opposite direction, so a
    float32 cast makes an error of one sign that no mean or sum can average away (a loss over many rows, say),
    while float64 sees the values exactly.
    """
    g = f32_exact(x)
    step = np.spacing(np.abs(g).astype(np.float32)).astype(np.float64)
    return g + 0.4 * step * np.asarray(direction, dtype=np.float64)


def to_edge(x: Any, edge: float) -> float:
    """The constant that puts x's largest entry on `edge` (its smallest, for a negative edge).

    "Scores near 1e4" as x + to_edge(x, 1e4) reach the documented +-1e4 without passing it: a solution that is
    right over the documented range (one that clips far outside it, say) passes at every seed.
    """
    arr = np.asarray(x, dtype=np.float64)
    finite = arr[np.isfinite(arr)]
    return float(edge - finite.max()) if edge >= 0 else float(edge - finite.min())
# -- ladders-b: attention-like problems ----------------------------------------------------------------------

# The largest score the attention exercises promise to handle ("scores near 1e4").
SCORE_MAGNITUDE = 1e4


def peaked_qk(rng: np.random.Generator, lead: Sequence[int], t_q: int, t_k: int, d_k: int, *,
              allowed: np.ndarray | None = None, magnitude: float = SCORE_MAGNITUDE,
              divisor: float | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """q (*lead, t_q, d_k) and k (*lead, t_k, d_k) whose scores q k^T / divisor (sqrt(d_k) by default) put each
    row's maximum at a random allowed key, far above the rest of the row, with rows at very different offsets.

    Every key j gets a random unit direction u_j (feature 0 left out) and feature 0 = 1; query i points along the
    direction of its chosen key p(i) and carries an offset c_i in feature 0, so that score[i, j] =
    a * cos(u_p(i), u_j) + c_i: the peak a + c_i, the other keys up to 2a below it, and |score| <= magnitude.
    A softmax shifted by anything but each row's own maximum (the diagonal, the first or last key, the mean, one
    global maximum) overflows here, wherever the code assumes the maximum sits. `allowed` (broadcastable to
    (*lead, t_q, t_k), True = may hold the peak, at least one per row) keeps the peaks on keys a row may see; the
    keys it may not see score below the peak. Returns q, k and p, the peak's key in each row (*lead, t_q).
    d_k >= 3.
    """
    lead = tuple(lead)
    a = magnitude / 2.5
    divisor = float(np.sqrt(d_k)) if divisor is None else float(divisor)
    u = rng.normal(size=(*lead, t_k, d_k - 1))
    u /= np.linalg.norm(u, axis=-1, keepdims=True)
    ok = np.ones((t_q, t_k), dtype=bool) if allowed is None else np.asarray(allowed, dtype=bool)
    ok = np.broadcast_to(ok, (*lead, t_q, t_k))
    peak = np.argmax(np.where(ok, rng.random(ok.shape), -1.0), axis=-1)  # a random allowed key per row
    direction = np.take_along_axis(u, peak[..., None].repeat(d_k - 1, axis=-1), axis=-2)
    offset = rng.uniform(-1.5 * a, 0.5 * a, size=(*lead, t_q, 1))
    q = np.concatenate([offset, a * direction], axis=-1) * divisor
    k = np.concatenate([np.ones((*lead, t_k, 1)), u], axis=-1)
    return f32_exact(q), f32_exact(k), peak


def peaked_self_attention(rng: np.random.Generator, batch: int, t: int, d_model: int, n_heads: int, hd: int,
                          n_kv_heads: int | None = None, *, magnitude: float = SCORE_MAGNITUDE
                          ) -> tuple[np.ndarray, tuple[np.ndarray, ...], np.ndarray]:
    """x (batch, t, d_model) and (W_q, W_k, W_v, W_o) of causal self-attention whose scores, in every head, are
    the peaked rows of `peaked_qk` (each row's maximum at a random key j <= i, up to about `magnitude`).

    x holds the queries' vectors in features 0..m-1 and the keys' in m..2m-1 (m = min(hd, (d_model - 1) // 2),
    at least 3); W_q and W_k copy them into the first m features of every head, so each head's q k^T / sqrt(hd) is
    the same peaked matrix, however the heads are split or shared. The values come from the other features only,
    at ordinary size. W_q is (d_model, n_heads * hd), W_k and W_v (d_model, n_kv_heads * hd), W_o
    (n_heads * hd, d_model). Returns x, the four W and the scores (batch, t, t), the future at -inf.
    """
    n_kv = n_heads if n_kv_heads is None else n_kv_heads
    m = min(hd, (d_model - 1) // 2)
    if m < 3:
        raise ValueError(f"d_model = {d_model} and hd = {hd} leave fewer than 3 features per query and key")
    future = np.triu(np.ones((t, t), dtype=bool), k=1)
    alpha, beta, _ = peaked_qk(rng, (batch,), t, t, m, allowed=~future, magnitude=magnitude, divisor=np.sqrt(hd))
    x = np.concatenate([alpha, beta, normal(rng, (batch, t, d_model - 2 * m))], axis=-1)
    W_q, W_k = np.zeros((d_model, n_heads * hd)), np.zeros((d_model, n_kv * hd))
    for h in range(n_heads):
        W_q[np.arange(m), h * hd + np.arange(m)] = 1.0
    for g in range(n_kv):
        W_k[m + np.arange(m), g * hd + np.arange(m)] = 1.0
    W_v = np.zeros((d_model, n_kv * hd))
    W_v[2 * m:] = normal(rng, (d_model - 2 * m, n_kv * hd), scale=1.0 / np.sqrt(d_model - 2 * m))
    W_o = normal(rng, (n_heads * hd, d_model), scale=1.0 / np.sqrt(n_heads * hd))
    scores = np.where(future, -np.inf, alpha @ np.swapaxes(beta, -1, -2) / np.sqrt(hd))
    return x, (W_q, W_k, W_v, W_o), scores


# Every score of a problem shifted down by thousands: no score is large and positive anywhere, so a softmax that
# subtracts the maximum only when some score is large underflows to 0/0, and at -1e4 the real scores sink to where
# a finite mask fill of -1e4 puts the future.
LOW_SHIFTS = (-3e3, -1e4)

# The head size of most large models. A finite fill put in before the scores are divided by sqrt(d) shrinks with
# them: -1e5 becomes -8,839 at d = 128, above real scores of -1e4, so the lowest shift is also tried this wide.
WIDE_HEAD = 128


def low_shifts(narrow: int) -> list[tuple[float, int]]:
    """(shift, head size) of the shifted problems: every LOW_SHIFTS at head size `narrow`, the lowest also at
    WIDE_HEAD when float64 results are judged. (At float32 the raw products q . k of -1e4 * sqrt(128) = -1.1e5
    round by about 0.008 however the code is written: past the tolerance of a comparison with the reference.)"""
    wide = [(LOW_SHIFTS[-1], WIDE_HEAD)] if precision.current() == precision.FLOAT64 else []
    return [(s, int(narrow)) for s in LOW_SHIFTS] + wide


def fill_before_scale(d: int, name: str = "d_k") -> str:
    """Advice for a leak at scores near -1e4 and head size d: a finite fill, or one put in before the scale."""
    text = "mask with -np.inf (or -1e9), not a finite fill such as -1e4"
    if d >= WIDE_HEAD:
        text += (f", and not before dividing by sqrt({name}): a fill of -1e5 put in first becomes "
                 f"{-1e5 / np.sqrt(d):,.0f} at {name} = {d}, above these scores")
    return text


def sunken_qk(rng: np.random.Generator, lead: Sequence[int], t_q: int, t_k: int, d_k: int,
              level: float = -SCORE_MAGNITUDE) -> tuple[np.ndarray, np.ndarray]:
    """q (*lead, t_q, d_k) and k (*lead, t_k, d_k) whose every score q k^T / sqrt(d_k) is about `level`, give or
    take about 1: feature 0 carries the level, the others ordinary random scores."""
    q, k = normal(rng, (*lead, t_q, d_k)), normal(rng, (*lead, t_k, d_k))
    q[..., 0], k[..., 0] = level * np.sqrt(d_k), 1.0
    return f32_exact(q), f32_exact(k)


def uniform_score_shift(rng: np.random.Generator, batch: int, t: int, d_model: int, n_heads: int, hd: int,
                        n_kv_heads: int | None = None, *, shift: float) -> tuple[tuple, tuple]:
    """(moderate, shifted) inputs (x, W_q, W_k, W_v, W_o) of causal self-attention: one problem, with `shift`
    added to every score of every head in the shifted one, which attention ignores (y must not change).

    Feature 1 of x is 1 and puts sqrt(hd) in entry 0 of every query head; feature 0 is 0, or `shift` in the
    shifted problem, and reaches only entry 0 of every key head: q . k / sqrt(hd) gains exactly `shift`."""
    n_kv = n_heads if n_kv_heads is None else n_kv_heads
    x = normal(rng, (batch, t, d_model))
    x[..., 0], x[..., 1] = 0.0, 1.0
    W_q = normal(rng, (d_model, n_heads * hd), scale=1.0 / np.sqrt(d_model))
    W_k = normal(rng, (d_model, n_kv * hd), scale=1.0 / np.sqrt(d_model))
    W_v = normal(rng, (d_model, n_kv * hd), scale=1.0 / np.sqrt(d_model))
    W_o = normal(rng, (n_heads * hd, d_model), scale=1.0 / np.sqrt(n_heads * hd))
    q_cols, k_cols = np.arange(n_heads) * hd, np.arange(n_kv) * hd
    W_q[:, q_cols], W_k[:, k_cols] = 0.0, 0.0
    W_q[0], W_k[0], W_v[0] = 0.0, 0.0, 0.0
    W_q[1, q_cols], W_k[0, k_cols] = np.sqrt(hd), 1.0
    shifted = x.copy()
    shifted[..., 0] = shift
    return (x, W_q, W_k, W_v, W_o), (shifted, W_q, W_k, W_v, W_o)


def peak_text(scores: np.ndarray, row: tuple[int, ...]) -> str:
    """Evidence for one row of peaked scores: 'row 5 peaks at key 2 (score 3,871.2; the row spans 7,602.9)', or
    'row [1, 5] ...' for a row of a batch."""
    s = np.asarray(scores)[row]
    finite = s[np.isfinite(s)]
    j = int(np.argmax(np.where(np.isfinite(s), s, -np.inf)))
    where = str(row[0]) if len(row) == 1 else "[" + ", ".join(map(str, row)) + "]"
    return (f"row {where} peaks at key {j} (score {s[j]:,.1f}; "
            f"the row spans {float(np.ptp(finite)):,.1f})")


def long_length(t: int = LONG_T) -> Rung:
    """The one long rung of an attention-like exercise: 'T = 1,024'."""
    return Rung(f"T = {count(t)}", int(t))


# The medium rung that sizes the long one, and the seconds the candidate's call on the long rung may take.
MEDIUM_T = 128
# Projected seconds of one long call: vectorised code stays far below it even on a loaded machine (the reference
# solutions' medium calls, 1 to 2 ms, project to 65 to 130 ms at T = 1,031). Explicit loops get the longest T
# that fits, about 450 for a triple loop: still ten times the small rungs, and a second, not several, per check.
LONG_RUNG_BUDGET_S = 1.0


class Stopwatch:
    """Seconds spent inside `with watch:` blocks: around the candidate's calls, the round trip included (a result
    returned as lists of Python floats costs more to send back than to compute)."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self._started = 0.0

    def __enter__(self) -> Stopwatch:
        self._started = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.seconds += time.perf_counter() - self._started


def up_to_long(judge: Callable[[Rung], None], watch: Stopwatch, *, medium: int = MEDIUM_T, long: int = LONG_T,
               budget_s: float = LONG_RUNG_BUDGET_S) -> None:
    """Judge a medium rung (T = 128), then the long one: T = 1,024 when the candidate's calls on the medium rung
    (timed by `watch`, which the judge wraps around them) say its call fits in budget_s seconds there (attention's
    work grows as T^2), else the longest T that does.

    Vectorised code is judged at T = 1,024 in a few tens of milliseconds; explicit Python loops over the (T, T)
    scores would take seconds there, so they are judged at the longest T the time allows (still far above the small
    rungs: a switch of precision or method above some size shows). Each Fail names its rung."""
    before = watch.seconds
    first_failing([long_length(medium)], judge)
    took = max(watch.seconds - before, 1e-6)
    t = long if took * (long / medium) ** 2 <= budget_s else int(medium * np.sqrt(budget_s / took))
    if t > medium:
        first_failing([long_length(min(t, long))], judge)


def check_close_fast(got: Any, want: Any, what: str, rtol: float = RTOL, atol: float = ATOL,
                     context: str = "") -> np.ndarray:
    """grading.check_close for the long rungs: a quick pass over (T, T)-sized arrays when every entry is finite
    and close; else the evidence of check_close (enough digits to tell the two numbers apart, the relative error
    against the tolerance)."""
    arr = as_float(got, what)
    ref = np.asarray(want, dtype=np.float64)
    if arr.shape == ref.shape and _all_close(arr, ref, *tolerance(rtol, atol, ref)):
        return arr
    return check_close(arr, ref, what, rtol=rtol, atol=atol, context=context)


def _all_close(got: np.ndarray, want: np.ndarray, rtol: float, atol: float) -> bool:
    """|got - want| <= atol + rtol |want| everywhere (a NaN anywhere is not close), a chunk at a time: two buffers
    that stay in the cache instead of four temporaries the size of a (T, T) matrix (7x faster at T = 1,031)."""
    flat_got, flat_want = got.reshape(-1), want.reshape(-1)
    if flat_got.size == 0:
        return True
    step = min(flat_got.size, 1 << 15)
    diff, allowed = np.empty(step), np.empty(step)
    with np.errstate(all="ignore"):
        for start in range(0, flat_got.size, step):
            g, w = flat_got[start:start + step], flat_want[start:start + step]
            d = np.subtract(g, w, out=diff[:g.size])
            np.abs(d, out=d)
            a = np.abs(w, out=allowed[:g.size])
            a *= rtol
            a += atol
            if not np.less_equal(d, a).all():
                return False
    return True


def expect_refused(cand: Any, names: Sequence[str], fn: str, *args: Any, what: str = "", **kwargs: Any) -> None:
    """grading.expect_raises for edge sizes where more than one exception is a fair refusal (zero heads: the
    ValueError the contract asks for, or the ZeroDivisionError of `n % 0` on the way to it). Fail when the call
    returns normally or raises something else."""
    label = what or f"{fn} with bad input"
    try:
        cand.call(fn, *args, **kwargs)
    except CandidateError as err:
        if err.not_implemented:
            raise
        if any(err.is_a(name) for name in names):
            tally = CURRENT_TALLY.get()
            if tally is not None:
                tally.expected_raises += 1
            return
        raise Fail(f"{label} raised {err.type_name}, expected {' or '.join(names)}") from None
    raise Fail(f"{label} returned normally, expected it to raise {' or '.join(names)}")


def meanwhile(fn: Callable[..., Any], *args: Any) -> Callable[[], Any]:
    """Start fn(*args) in a thread; the function returned waits for its result (and re-raises what it raised).

    For the long rungs: the reference runs here while the worker runs the candidate on the same inputs, so the two
    (T, T) computations overlap on two cores instead of adding up. fn must only read its arguments."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = fn(*args)
        except BaseException as exc:  # handed to the caller below
            box["error"] = exc

    thread = threading.Thread(target=run, name="attnprep-reference", daemon=True)
    thread.start()

    def result() -> Any:
        thread.join()
        if "error" in box:
            raise box["error"]
        return box["value"]

    return result
# -- ladders-c: scores chosen outright, long caches, exact integers past float64 ------------------------------

def scores_as_qk(scores: np.ndarray, extra: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """q (T_q, d) and k (T_k, d) whose scaled scores q @ k.T / sqrt(d) are `scores` (T_q, T_k), up to rounding.

    k = [I | 0] and q = [scores * sqrt(d) | 0] with d = T_k + extra, so a probe can put each row's maximum
    wherever it likes (see `peaked_rows`) instead of where a construction from random q and k happens to.
    """
    s = np.asarray(scores, dtype=np.float64)
    t_q, t_k = s.shape
    d = t_k + int(extra)
    k = np.zeros((t_k, d))
    k[:, :t_k] = np.eye(t_k)
    q = np.zeros((t_q, d))
    q[:, :t_k] = s * np.sqrt(d)
    return q, k


def with_zero_rows(rng: np.random.Generator, x: np.ndarray, *, low: int = 0, axis: int = -2) -> tuple[np.ndarray, int]:
    """A copy of x with one row along `axis` (from `low` on) set to exactly 0, and its index.

    A query or key of zeros scores exactly 0 against everything: a real score, which code that takes a 0 for a
    blocked entry (the zeros np.tril leaves) drops, or turns into a 0/0 row."""
    x = np.array(x, dtype=np.float64)
    row = int(rng.integers(low, x.shape[axis]))
    np.moveaxis(x, axis, 0)[row] = 0.0
    return x, row


ZERO_SCORES = ("a score of exactly 0 is a score like any other, not a blocked entry (mask with a bool mask, "
               "not by testing scores == 0)")


def causal_allowed(t_q: int, t_k: int | None = None) -> np.ndarray:
    """(t_q, t_k) bool, True where query i may attend key j (j <= i + t_k - t_q): where a row's peak may sit."""
    t_k = t_q if t_k is None else t_k
    return np.tril(np.ones((t_q, t_k), dtype=bool), k=t_k - t_q)


# Cache lengths for decoding: nothing cached, a few positions, and past the sizes a fixed buffer is often given
# (256, a 2,048-position window, and 4,096 and 8,192, the context lengths of common models).
CACHE_LENGTHS = (0, 1, 5, 257, 2_050, 4_100, 8_200)


def cache_lengths(values: Sequence[int] = CACHE_LENGTHS) -> list[Rung]:
    return [Rung("an empty cache (cache=None)" if t == 0 else f"a cache of {count(t)} positions", int(t))
            for t in values]


# Exact integer arithmetic: counts around the sizes where a fixed-width or floating type stops being exact.
# Kept below 2**62 so that np.int64 (allowed by the exercises) never overflows, while float64 (exact to 2**53)
# and int32 (to 2**31) do.
EXACT_LIMITS = ((2**31, "2**31, where int32 wraps"), (2**53, "2**53, where float64 stops holding every integer"),
                (2**60, "2**60"))


# Past the fixed-width NumPy integers: where np.int64 and np.uint64 wrap silently. An exercise whose instructions
# allow a NumPy integer result keeps its RESULT below 2**63 on these rungs and lets only an intermediate (a bit
# count, 8 * a budget) pass them, so that exact code passes whatever integer type it returns.
WRAP_LIMITS = ((2**63, "2**63, where int64 wraps"), (2**64, "2**64, where uint64 wraps"))


def wrapped(x: int, width: int = 64) -> tuple[int, int]:
    """x as a signed and as an unsigned `width`-bit integer would hold it after silent wrap-around."""
    unsigned = x % 2**width
    return unsigned - 2**width if unsigned >= 2 ** (width - 1) else unsigned, unsigned


def huge_counts(rng: np.random.Generator, *, per_unit: int = 1, limits: Sequence[tuple[int, str]] = EXACT_LIMITS,
                ) -> list[Rung]:
    """Odd counts n whose product n * per_unit lies just past each limit (never a power of two, so rounding a
    float shows), labelled 'a total past 2**53, ...'."""
    out = []
    for limit, name in limits:
        n = (limit // max(int(per_unit), 1) + int(rng.integers(1, 1_000)) * 2) | 1
        out.append(Rung(f"a total past {name} (n = {count(n)})", int(n)))
    return out


# Integers float32 cannot hold: above 2**24 = 16,777,216 its spacing is 2, so every odd integer rounds to an even
# neighbour (off by one), while float64 and int32 hold them exactly.
F32_INTEGER_LIMIT = 2**24


def past_f32_integers(rng: np.random.Generator, n: int, *, limit: int = F32_INTEGER_LIMIT,
                      span: int = 2**20) -> np.ndarray:
    """n distinct odd integers in (limit, limit + span], limit + 1 among them, in a random order (int64).

    For positions or counts that a float32 cast moves by one: 16,777,217 becomes 16,777,216. `span` keeps them
    below 2 * limit, where float32's spacing doubles again (and a table of every value up to the largest stays as
    small as the rung allows)."""
    others = 1 + rng.choice(span // 2 - 1, size=max(int(n) - 1, 0), replace=False)  # never 0: limit + 1 is taken
    values = limit + 1 + 2 * np.concatenate([[0], others]).astype(np.int64)
    return rng.permutation(values[: max(int(n), 0)])


def off_grid_factors(rng: np.random.Generator, target: np.ndarray, inner: int) -> tuple[np.ndarray, np.ndarray]:
    """a (n, inner) and b (inner, m) with a @ b = target up to float64 rounding, neither on float32's grid.

    b is Gaussian over sqrt(inner) (inner >= m: full column rank, well conditioned), a = target @ pinv(b), so a's
    entries are about as large as the target's. Rounding a or b to float32 then moves every entry of the product by
    about 6e-8 of its size, independently across the columns: a product chosen in the hundreds with small gaps (router
    logits, attention scores) shows a float32 cast of either factor, where products of standard normals (a few
    units) and factors on float32's grid (an identity, small integers) do not.
    """
    t = np.asarray(target, dtype=np.float64)
    if int(inner) < t.shape[1]:
        raise ValueError(f"inner ({inner}) must be at least the product's columns ({t.shape[1]})")
    b = rng.normal(size=(int(inner), t.shape[1])) / np.sqrt(inner)
    return t @ np.linalg.pinv(b), b
