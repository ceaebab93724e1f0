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
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, NamedTuple

import numpy as np

from attnprep.grading import Fail

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
# Sequence lengths for attention-like exercises: one long rung where the time budget allows.
LONG_T = 1_024


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
        return (entries,)
    side = int(np.ceil(entries ** (1.0 / ndim)))
    shape = [side - ndim + 1 + i for i in range(ndim)]
    while int(np.prod(shape)) < entries:
        shape[-1] += 1
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


def causal_allowed(t_q: int, t_k: int | None = None) -> np.ndarray:
    """(t_q, t_k) bool, True where query i may attend key j (j <= i + t_k - t_q): where a row's peak may sit."""
    t_k = t_q if t_k is None else t_k
    return np.tril(np.ones((t_q, t_k), dtype=bool), k=t_k - t_q)


# Cache lengths for decoding: nothing cached, a few positions, and past the sizes a fixed buffer is often given
# (256, a 2,048-position window).
CACHE_LENGTHS = (0, 1, 5, 257, 2_050)


def cache_lengths(values: Sequence[int] = CACHE_LENGTHS) -> list[Rung]:
    return [Rung("an empty cache (cache=None)" if t == 0 else f"a cache of {count(t)} positions", int(t))
            for t in values]


# Exact integer arithmetic: counts around the sizes where a fixed-width or floating type stops being exact.
# Kept below 2**62 so that np.int64 (allowed by the exercises) never overflows, while float64 (exact to 2**53)
# and int32 (to 2**31) do.
EXACT_LIMITS = ((2**31, "2**31, where int32 wraps"), (2**53, "2**53, where float64 stops holding every integer"),
                (2**60, "2**60"))


def huge_counts(rng: np.random.Generator, *, per_unit: int = 1, limits: Sequence[tuple[int, str]] = EXACT_LIMITS,
                ) -> list[Rung]:
    """Odd counts n whose product n * per_unit lies just past each limit (never a power of two, so rounding a
    float shows), labelled 'a total past 2**53, ...'."""
    out = []
    for limit, name in limits:
        n = (limit // max(int(per_unit), 1) + int(rng.integers(1, 1_000)) * 2) | 1
        out.append(Rung(f"a total past {name} (n = {count(n)})", int(n)))
    return out
