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
    for r in range(rows):
        at = int(rng.choice(inner))
        others = [j for j in inner if j != at]
        for j in rng.permutation(others)[:near] if others else []:
            x[r, j] = peak[r] - rng.uniform(0.5, 8.0)
        x[r, at] = peak[r]
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
