"""The precision a file is judged at: float64, or float32 when its results are float32 arrays.

A float32 solution cannot match the reference to 1e-6: its inputs are rounded to 24 bits, and every step after
rounds again. So when the candidate's results are float32 the judge changes three things, and only then:
- the reference is computed (in float64) on the float32-rounded inputs, so the input rounding is not counted;
- tolerances start from float32's precision (RTOL32, and ATOL32 of the compared array's largest entry);
- each candidate call also measures the problem's conditioning at its inputs, and the largest in the check is
  added to the absolute tolerance (`allowance`): ALLOWANCE_FACTOR times how far the reference's result moves
  when its float inputs move by one float32 rounding. Scores near 1e4 or logits at temperature 0.01 lose digits
  in any float32 code, and the bound grows with them. What input rounding cannot show, a grader states for its
  function (`FLOAT32_ROUNDING`): a loss that is a log-sum-exp near 8,000 keeps no more digits than 8,000 does,
  and a rope angle at position 1e5 is as far off as 1e5 rounds (see `rounding_of`).
A float64 result is held to float64 precision at every size. float16 and bfloat16 results are judged at
float32 precision, which they cannot reach: the report says to compute in float32 or float64.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from typing import Any

import numpy as np

FLOAT64, FLOAT32, FLOAT16 = "float64", "float32", "float16"
EPS32 = float(np.finfo(np.float32).eps)
RTOL32 = 1e-4  # float32 keeps 7 digits; a few hundred roundings along a row still leave 4
ATOL32 = 1e-5  # times the largest entry compared: cancellation near zero loses digits relative to the row's scale
ALLOWANCE_FACTOR = 8.0  # a float32 program rounds at many steps, each about as large as the one measured
MAGNITUDE_FACTOR = 4.0  # an intermediate of some size rounds by this many float32 units of its last place
PERTURBATIONS = 2
ALLOWANCE_MAX_ENTRIES = 1 << 18  # larger inputs reuse the allowance measured on smaller ones (parent time)

# The precision of the grading running in this thread (batch grading runs gradings in threads).
CURRENT: contextvars.ContextVar[str] = contextvars.ContextVar("attnprep_precision", default=FLOAT64)


def current() -> str:
    return CURRENT.get()


def of_result(value: Any) -> str | None:
    """The lowest float precision among the float arrays and numbers in a returned value; None if it has none."""
    found: set[str] = set()

    def visit(v: Any, depth: int = 0) -> None:
        if depth > 8:
            return
        if isinstance(v, (np.ndarray, np.generic)) and v.dtype.kind == "f":
            found.add({8: FLOAT64, 4: FLOAT32}.get(v.dtype.itemsize, FLOAT16 if v.dtype.itemsize < 4 else FLOAT64))
        elif isinstance(v, dict):
            for item in list(v.values())[:64]:
                visit(item, depth + 1)
        elif isinstance(v, (list, tuple)):
            for item in list(v)[:64]:
                visit(item, depth + 1)

    visit(value)
    for p in (FLOAT16, FLOAT32, FLOAT64):
        if p in found:
            return p
    return None


def lowest(precisions: list[str | None]) -> str:
    """float16 below float32 below float64; float64 when nothing was seen."""
    seen = [p for p in precisions if p]
    return next((p for p in (FLOAT16, FLOAT32) if p in seen), FLOAT64)


def tolerance(rtol: float, atol: float, scale: float = 1.0, allowance: float = 0.0) -> tuple[float, float]:
    """(rtol, atol) at the current precision: as given at float64; at float32 never below float32's own."""
    if current() == FLOAT64:
        return rtol, atol
    return max(rtol, RTOL32), max(atol, ATOL32 * scale, allowance)


def scale_of(want: Any) -> float:
    """The largest finite magnitude in an array (1.0 when there is none), for a tolerance relative to it."""
    arr = np.asarray(want, dtype=np.float64)
    if arr.size == 0:
        return 1.0
    with np.errstate(all="ignore"):
        finite = np.abs(arr[np.isfinite(arr)])
    return float(finite.max()) if finite.size and finite.max() > 0 else 1.0


# -- the reference on float32-rounded inputs --------------------------------------

def rounded(value: Any, depth: int = 0) -> Any:
    """float arrays (and dicts, lists, tuples of them) rounded to float32 and held as float64 again."""
    if isinstance(value, np.ndarray) and value.dtype.kind == "f":
        with np.errstate(all="ignore"):
            return value.astype(np.float32).astype(value.dtype)
    if depth < 8 and isinstance(value, dict):
        return {k: rounded(v, depth + 1) for k, v in value.items()}
    if depth < 8 and isinstance(value, (list, tuple)) and not hasattr(value, "_fields"):
        return type(value)(rounded(v, depth + 1) for v in value)
    return value


def _perturbed(value: Any, rng: np.random.Generator, depth: int = 0) -> Any:
    """Each float entry moved by one float32 rounding, up or down at random."""
    if isinstance(value, np.ndarray) and value.dtype.kind == "f":
        signs = rng.choice(np.array([-1.0, 1.0]), size=value.shape)
        with np.errstate(all="ignore"):
            return value * (1.0 + EPS32 * signs)
    if depth < 8 and isinstance(value, dict):
        return {k: _perturbed(v, rng, depth + 1) for k, v in value.items()}
    if depth < 8 and isinstance(value, (list, tuple)) and not hasattr(value, "_fields"):
        return type(value)(_perturbed(v, rng, depth + 1) for v in value)
    return value


def _largest_input(value: Any, depth: int = 0) -> float:
    """The largest finite magnitude among the numeric arrays of the arguments (positions count: an angle is built
    from them)."""
    if isinstance(value, np.ndarray) and value.dtype.kind in "iuf" and value.size and value.ndim == 0:
        value = value.reshape(1)
    if isinstance(value, np.ndarray) and value.dtype.kind in "iuf" and value.size:
        with np.errstate(all="ignore"):
            finite = np.abs(value[np.isfinite(value)]) if value.dtype.kind == "f" else np.abs(value)
        return float(finite.max()) if finite.size else 0.0
    if depth < 8 and isinstance(value, dict):
        return max((_largest_input(v, depth + 1) for v in value.values()), default=0.0)
    if depth < 8 and isinstance(value, (list, tuple)):
        return max((_largest_input(v, depth + 1) for v in value), default=0.0)
    return 0.0


def _float_entries(value: Any, depth: int = 0) -> int:
    if isinstance(value, np.ndarray):
        return int(value.size) if value.dtype.kind == "f" else 0
    if depth < 8 and isinstance(value, dict):
        return sum(_float_entries(v, depth + 1) for v in value.values())
    if depth < 8 and isinstance(value, (list, tuple)):
        return sum(_float_entries(v, depth + 1) for v in value)
    return 0


def _max_difference(a: Any, b: Any, depth: int = 0) -> float:
    """The largest finite |a - b| over matching float arrays and numbers (0 where they do not match up)."""
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and len(a) == len(b) and depth < 8:
        return max((_max_difference(x, y, depth + 1) for x, y in zip(a, b, strict=True)), default=0.0)
    if isinstance(a, dict) and isinstance(b, dict) and depth < 8:
        return max((_max_difference(a[k], b[k], depth + 1) for k in a if k in b), default=0.0)
    try:
        x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    except (TypeError, ValueError):
        return 0.0
    if x.shape != y.shape or x.size == 0:
        return 0.0
    with np.errstate(all="ignore"):
        d = np.abs(x - y)
        d = d[np.isfinite(d)]
    return float(d.max()) if d.size else 0.0


def rounding_of(*values: Any) -> float:
    """MAGNITUDE_FACTOR float32 roundings of the largest magnitude among these values (arrays or numbers)."""
    with np.errstate(all="ignore"):
        return MAGNITUDE_FACTOR * EPS32 * max((_largest_input(np.asarray(v)) for v in values), default=0.0)


def allowance(fn: Callable[..., Any], args: tuple, kwargs: dict,
              stated: Callable[[tuple, dict], float] | None = None) -> float:
    """The absolute error float32 code may show on this call: from the conditioning of fn at these inputs, and
    what the grader states (`stated(args, kwargs)`) for what input rounding cannot show."""
    floor = 0.0
    if stated is not None:
        try:
            floor = float(stated(args, kwargs))
        except Exception:  # noqa: BLE001 - a statement about inputs the candidate was given: never a verdict
            floor = 0.0
    if _float_entries((args, kwargs)) > ALLOWANCE_MAX_ENTRIES:
        return floor
    base_args, base_kwargs = rounded(args), rounded(kwargs)
    try:
        with np.errstate(all="ignore"):
            base = fn(*base_args, **base_kwargs)
            worst = 0.0
            rng = np.random.default_rng(20260)  # fixed: the allowance depends on the inputs only
            for _ in range(PERTURBATIONS):
                moved = fn(*_perturbed(base_args, rng), **_perturbed(base_kwargs, rng))
                worst = max(worst, _max_difference(moved, base))
    except Exception:  # noqa: BLE001 - the reference refuses a perturbed input (a validation): the floor only
        return floor
    return max(floor, ALLOWANCE_FACTOR * worst)


class RoundedReference:
    """The reference module, computing on float32-rounded copies of its float inputs."""

    def __init__(self, module: Any) -> None:
        self._module = module

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._module, name)
        if not callable(attr) or isinstance(attr, type) or name.startswith("_"):
            return attr

        def call(*args: Any, **kwargs: Any) -> Any:
            return attr(*rounded(args), **rounded(kwargs))

        call.__name__ = name
        return call
