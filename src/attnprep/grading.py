"""The toolkit the hidden checks in grader/ are written with.

A check is a function `check(cand, ref, rng)` decorated with `@invariant(id,
description)`. `cand` calls the learner's functions in the worker and hands
back plain data; `ref` is the reference solution, run here in the parent;
the check raises `Fail` with the smallest concrete evidence when the
candidate breaks the invariant.
"""

from __future__ import annotations

import contextlib
import contextvars
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from attnprep import precision, wire
from attnprep.wire import RngSpec, Unsupported

RTOL, ATOL = 1e-6, 1e-9
_LINUX = sys.platform.startswith("linux")  # where the kernel accounts for a worker's peak memory (/proc)
# The version of this module as the public API graders are written against (docs/authoring.md). Additions
# keep it; a change that could break an existing grader raises it. An exercise pack states the version it
# was written for in its catalogue.json ("grading_api"), and `attnprep dev check` refuses a newer one.
API_VERSION = 1


class Fail(Exception):
    """The candidate broke the invariant; the message is shown to the learner."""


class CandidateError(Exception):
    """A candidate function raised; carries the exception's type and line."""

    def __init__(self, fn: str, type_name: str, mro: list[str], message: str, line: int | None,
                 call: str | None = None):
        self.fn, self.type_name, self.mro, self.text, self.line = fn, type_name, mro, message, line
        self.call = call  # the call with its argument shapes, for a failure no check put into words
        super().__init__(f"{fn} raised {self.described}")

    def is_a(self, name: str) -> bool:
        return name in self.mro

    @property
    def not_implemented(self) -> bool:
        return self.is_a("NotImplementedError")

    @property
    def described(self) -> str:
        """`Type: message (line N)`, for a check's own sentence about the failure."""
        return f"{self.type_name}{': ' + self.text if self.text else ''}{f' (line {self.line})' if self.line else ''}"


@dataclass
class Tally:
    """What one check's candidate calls gave: the engine reads it to tell a pass from "not judged".

    A check that raised no Fail has judged something only if some call returned a usable value (or raised the
    exception the check expected); a call it had to pass over (a `Broke`) means part of the check never ran.
    Every call also compares its arguments before and after, so a change in place anywhere is caught.
    """

    results: int = 0  # calls that returned a value
    expected_raises: int = 0  # calls that raised what the check wanted (bad input)
    broke: list[str] = field(default_factory=list)  # calls passed over: what went wrong
    changed: list[str] = field(default_factory=list)  # calls that modified an argument in place
    allowance: float = 0.0  # float32 grading: how far the reference moves under one rounding of its inputs

    @property
    def judged(self) -> bool:
        return self.results + self.expected_raises > 0


# The tally of the check running in this thread (batch grading runs checks in threads).
CURRENT_TALLY: contextvars.ContextVar[Tally | None] = contextvars.ContextVar("current_tally", default=None)


def _tally() -> Tally:
    tally = CURRENT_TALLY.get()
    return tally if tally is not None else Tally()


@contextlib.contextmanager
def own_allowance() -> Iterator[None]:
    """Judge the calls inside at float32 precision with their own conditioning only: the check's earlier calls (an
    ill-conditioned LayerNorm, say) do not widen the tolerance of a well-conditioned one (RMSNorm on the same
    inputs). The allowance the calls inside add is kept for the rest of the check."""
    tally = _tally()
    before, tally.allowance = tally.allowance, 0.0
    try:
        yield
    finally:
        tally.allowance = max(before, tally.allowance)


class Broke(NamedTuple):
    """A call that gave no usable result, kept as a value by `attempt`."""

    text: str  # what went wrong: the exception raised, or why the result could not be read
    raised: bool  # the candidate raised; else it returned something a check could not read (a Fail)


def attempt(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """fn(*args, **kwargs), or a Broke when the candidate raised or its result could not be read.

    For checks that judge one property only, such as `stable`: a crash or a malformed result on ordinary
    inputs is what the other invariants report. NotImplementedError still propagates, so a stub reads
    "not implemented yet" everywhere.
    """
    try:
        return fn(*args, **kwargs)
    except CandidateError as err:
        if err.not_implemented:
            raise
        _tally().broke.append(f"{err.call or err.fn} raised {err.described}")
        return Broke(err.described, raised=True)
    except Fail as exc:
        _tally().broke.append(str(exc))
        return Broke(str(exc), raised=False)


def cannot_judge(reason: str) -> None:
    """Record that part of this check could not be judged, for a reason of the candidate's that another check
    reports (its positions are ignored, say): the check then ends `not-judged` with `reason`, never as a pass."""
    _tally().broke.append(reason)


class CandidateCrash(Exception):
    """The worker died inside a candidate call (exit, segfault, memory)."""


class CallTimeout(Exception):
    """A candidate call ran out of time."""


def invariant(id: str, description: str) -> Callable[[Callable], Callable]:
    """Mark a function of a grader module as the check of one invariant."""

    def mark(fn: Callable) -> Callable:
        fn.invariant_id, fn.description = id, description
        return fn

    return mark


def mistake(id: str, message: str, fn: str | None = None) -> Callable[[Callable], Callable]:
    """Mark a deliberately wrong variant of the reference as a known mistake.

    The variant takes the same arguments as the candidate function `fn` (by
    default the grader's first FUNCTIONS entry). When a solution fails and its
    outputs on the grader's probe inputs match the variant (and not the
    reference), the report names the mistake with `message`: one sentence on
    what to change.
    """

    def mark(variant: Callable) -> Callable:
        variant.mistake_id, variant.mistake_message, variant.mistake_fn = id, message, fn
        return variant

    return mark


class Earlier(NamedTuple):
    """For Candidate.in_a_row: the value call number `call` returned, or its item at `index` (say (1,): a cache)."""
    call: int
    index: tuple[int, ...] = ()


def _shift_refs(data: Any, by: int) -> Any:
    """wire-encoded data with every array reference moved by `by` (its arrays appended after others)."""
    if isinstance(data, list):
        return [_shift_refs(v, by) for v in data]
    if isinstance(data, dict):
        return {k: (v + by if k in ("$nd", "$np") and type(v) is int else _shift_refs(v, by)) for k, v in data.items()}
    return data


class Candidate:
    """Proxy for the learner's module: `cand.softmax(z)` runs in the worker.

    Every call brings the arguments back as the candidate left them and compares them with what was sent,
    so `input-unchanged` hears of a change in place made during any check. `signatures` maps a function
    name to its parameter names (from the reference), to name an argument in that evidence.
    """

    def __init__(self, send: Callable[[dict, list[bytes]], Any],
                 signatures: dict[str, list[str]] | None = None, reference: Any = None,
                 rounding: dict[str, Callable[[tuple, dict], float]] | None = None) -> None:
        self._send = send
        self._signatures = signatures or {}
        self._reference = reference  # set when grading at float32: each call measures the conditioning
        self._rounding = rounding or {}  # the grader's FLOAT32_ROUNDING: what input rounding cannot show
        self.elapsed = 0.0
        self.returned: set[str] = set()  # functions that have returned a result at least once

    def __getattr__(self, name: str) -> Callable[..., Any]:
        if name.startswith("_"):
            raise AttributeError(name)
        return lambda *args, **kwargs: self.call(name, *args, **kwargs)

    def _request(self, fn: str, args: tuple, kwargs: dict, then_blobs: list[bytes] | None = None, **extra: Any):
        blobs: list[bytes] = []
        header = {"op": "call", "fn": fn, "args": wire.encode(list(args), blobs, share=True),
                  "kwargs": {"$dict": [[k, wire.encode(v, blobs, share=True)] for k, v in kwargs.items()]},
                  "return_args": True, **extra}
        if then_blobs:  # in_a_row's further calls: their array references move past this call's arrays
            header["then"] = _shift_refs(header["then"], len(blobs))
            blobs += then_blobs
        reply = self._send(header, blobs)
        head = reply.header
        kind = head.get("kind")
        tally = _tally()
        if kind == "result":
            self.elapsed += float(head.get("elapsed") or 0.0)
            tally.results += 1
            self.returned.add(fn)
            if reply.args is wire.ARGS_UNCHANGED:
                reply.args, reply.kwargs = list(args), dict(kwargs)
            else:
                change = self._changed_argument(fn, args, kwargs, reply.args, reply.kwargs)
                if change:
                    tally.changed.append(change)
            if self._reference is not None and callable(getattr(self._reference, fn, None)):
                tally.allowance = max(tally.allowance, precision.allowance(getattr(self._reference, fn), args, kwargs,
                                                                           self._rounding.get(fn)))
            return reply
        if kind == "exception":
            mro = list(head.get("mro", []))
            if "NotImplementedError" in mro and fn in self.returned:
                # Written, but not for this input: a failure of this call like any other (the check names the
                # input), not a stub's "not implemented yet".
                mro.remove("NotImplementedError")
            raise CandidateError(fn, head.get("type", "Exception"), mro, head.get("message", ""), head.get("line"),
                                 call=call_text(fn, self._signatures.get(fn, []), args, kwargs))
        if kind == "too-large":
            raise Fail(f"{fn} returned {head.get('message')}, too large to check")
        if kind == "unencodable":
            raise Fail(f"{fn} returned a value that could not be read back "
                       f"({head.get('type')}: {head.get('message')})")
        raise CandidateCrash(f"unexpected reply from the worker during {fn}: {kind}")

    def _changed_argument(self, fn: str, args: tuple, kwargs: dict, after_args: Any, after_kwargs: Any) -> str | None:
        """How this call changed one of its arguments in place, naming the call; None if it changed none."""
        names = self._signatures.get(fn, [])
        after_args = after_args if isinstance(after_args, (list, tuple)) else []
        after_kwargs = after_kwargs if isinstance(after_kwargs, dict) else {}
        pairs = [(names[i] if i < len(names) else f"argument {i + 1}", a,
                  after_args[i] if i < len(after_args) else None) for i, a in enumerate(args)]
        pairs += [(k, v, after_kwargs.get(k)) for k, v in kwargs.items()]
        for name, before, after in pairs:
            change = changed_in_place(before, after, name)
            if change:
                return f"{change} by {call_text(fn, names, args, kwargs)}; work on a copy"
        return None

    def call(self, fn: str, *args: Any, **kwargs: Any) -> Any:
        """Call one candidate function and return its result as plain data."""
        return self._request(fn, args, kwargs).value

    def reply(self, fn: str, *args: Any, **kwargs: Any) -> Any:
        """As `call`, but the worker's whole reply: `.value`, and `.header` with what the worker noted about the
        result (`bfloat16`: a PyTorch bfloat16 tensor sent as float32)."""
        return self._request(fn, args, kwargs)

    def call_as(self, label: str, fn: str, *args: Any, **kwargs: Any) -> Any:
        """Call `fn`; an exception it raises is reported under `label` (say, the argument shapes)."""
        try:
            return self.call(fn, *args, **kwargs)
        except CandidateError as err:
            if err.not_implemented:
                raise
            raise CandidateError(label, err.type_name, err.mro, err.text, err.line) from None

    def call_tracking_args(self, fn: str, *args: Any, **kwargs: Any) -> tuple[Any, list, dict]:
        """Call and also return the arguments as the candidate left them."""
        reply = self._request(fn, args, kwargs, return_args=True)
        return reply.value, reply.args, reply.kwargs

    def call_traced(self, fn: str, *args: Any, **kwargs: Any) -> tuple[Any, int]:
        """Call in a fresh worker; return the result and the peak memory the call added (bytes).

        The peak is the kernel's account of that worker, read by the parent from outside it
        (runner.Worker.finish_measured), which the candidate cannot lower inside the sandbox. tracemalloc is not
        running then: a file could ask `tracemalloc.is_tracing()` and behave only while it is measured. Only
        where the kernel gives no account (not Linux) does a second call measure with tracemalloc.
        """
        reply = self._request(fn, args, kwargs, measure=True, trace_memory=not _LINUX)
        if getattr(reply, "memory_problem", None):
            raise Fail(f"{fn}: {reply.memory_problem}")
        outside = getattr(reply, "memory_peak", None)
        if outside is not None:
            return reply.value, outside
        if _LINUX:  # /proc would not tell: tracemalloc's account, in a call of its own
            reply = self._request(fn, args, kwargs, measure=True, trace_memory=True)
        traced = reply.header.get("peak_bytes")
        if not (isinstance(traced, int) and traced >= 0):
            raise Fail(f"{fn} switched off memory tracing, so its memory use cannot be measured")
        return reply.value, traced

    def in_a_row(self, calls: list[tuple[str, tuple, dict]]) -> list[Any]:
        """Make the calls one after another in the worker, and only then read every result back.

        A result that is a view into a buffer the function keeps (and overwrites on its next call) shows as
        changed: a caller that holds two results at once (two sequences, two beams) gets the second twice. An
        argument `Earlier(i, index)` of a later call is what call i returned (its item at `index`), as the
        worker holds it: a cache fed back exactly as it was returned."""
        (fn, args, kwargs), rest = calls[0], calls[1:]
        if not rest:
            return [self._request(fn, args, kwargs).value]
        blobs: list[bytes] = []
        then = [{"fn": f, "args": [{"$prev": v.call, "index": list(v.index)} if isinstance(v, Earlier)
                                   else wire.encode(v, blobs, share=True) for v in a],
                 "kwargs": {"$dict": [[k, wire.encode(v, blobs, share=True)] for k, v in kw.items()]}}
                for f, a, kw in rest]
        return self._request(fn, args, kwargs, then=then, then_blobs=blobs).value

    def reload(self) -> bool:
        """Import the file again in the same worker, so that its module-level state starts over (a generator
        seeded at import, say). False when the second import did not succeed: nothing can then be judged."""
        reply = self._send({"op": "reload"}, [])
        head = reply.header if isinstance(getattr(reply, "header", None), dict) else {}
        return head.get("kind") == "loaded" and not head.get("missing")

    def repeat(self, n: int, fn: str, *args: Any, **kwargs: Any) -> list[Any]:
        """Call `fn` n times in a row on the same argument objects (one rng, say)."""
        return self._request(fn, args, kwargs, repeat=int(n)).value

    def repeat_global_seed(self, seed: int, n: int, fn: str, *args: Any, **kwargs: Any) -> list[Any]:
        """As `repeat`, with NumPy's global random state (np.random.seed) and Python's `random` seeded first:
        the same draws twice over from one seed mean the function draws from that global state."""
        return self._request(fn, args, kwargs, repeat=int(n), global_seed=int(seed)).value


# -- evidence helpers -----------------------------------------------------------

def median(values: Any) -> float:
    """np.median of the entries (NaN if any is NaN), without the import of numpy.ma that np.median makes on its
    first call (12 ms of a check)."""
    a = np.sort(np.asarray(values, dtype=np.float64).ravel())
    if a.size == 0 or np.isnan(a[-1]):
        return float("nan")
    mid = a.size // 2
    return float(a[mid]) if a.size % 2 else float((a[mid - 1] + a[mid]) / 2)


def fmt(x: Any) -> str:
    """A number as a learner wants to read it."""
    if isinstance(x, (bool, np.bool_)):
        return str(bool(x))
    if isinstance(x, (int, np.integer)):
        return f"{int(x):,}"
    try:
        v = float(x)
    except (TypeError, ValueError):
        return repr(x)
    if np.isnan(v) or np.isinf(v):
        return str(v)
    return f"{v:.6g}"


def shape_of(x: Any) -> str:
    return "(" + ", ".join(str(d) for d in np.shape(x)) + ("," if np.ndim(x) == 1 else "") + ")"


def as_array(value: Any, what: str, *, numeric: bool = True) -> np.ndarray:
    """Accept an ndarray or array-like the way np.asarray would; Fail otherwise."""
    if value is None:
        raise Fail(f"{what} is None; did you forget a return statement?")
    if isinstance(value, Unsupported):
        raise Fail(f"{what} is {value.detail or 'a ' + value.type_name}, which cannot be read as numbers: return a "
                   "NumPy array of numbers")
    if isinstance(value, str):
        raise Fail(f"{what} is a string, expected a NumPy array")
    if isinstance(value, dict):
        raise Fail(f"{what} is a dict, expected a NumPy array")
    try:
        arr = np.asarray(value)
    except (ValueError, TypeError) as exc:
        raise Fail(f"{what} cannot be read as an array ({exc})") from None
    if arr.dtype.hasobject or (numeric and arr.dtype.kind not in "biufc"):
        raise Fail(f"{what} is not numeric (dtype {arr.dtype})")
    return arr


def as_float(value: Any, what: str) -> np.ndarray:
    arr = as_array(value, what)
    if arr.dtype.kind == "c":
        raise Fail(f"{what} is complex (dtype {arr.dtype}); expected real numbers")
    return arr.astype(np.float64)


def unpack(value: Any, n: int, what: str) -> tuple:
    """A returned tuple (or list) of exactly n items."""
    if not isinstance(value, (tuple, list)) or len(value) != n:
        kind = (f"{len(value)} items" if isinstance(value, (tuple, list)) else
                f"{value.detail or 'a ' + value.type_name}" if isinstance(value, Unsupported) else
                "None" if value is None else f"a {type(value).__name__}")
        raise Fail(f"{what} should return a tuple of {n} items, got {kind}")
    return tuple(value)


def copied_exactly(got: np.ndarray, given: np.ndarray) -> bool:
    """`got` holds `given` unchanged; at float32 precision, unchanged after rounding to float32 too."""
    if np.array_equal(got, given):
        return True
    return precision.current() != precision.FLOAT64 and np.array_equal(got, precision.rounded(np.asarray(given)))


def check_shape(arr: np.ndarray, shape: tuple, what: str) -> None:
    if tuple(arr.shape) != tuple(shape):
        raise Fail(f"{what} has shape {shape_of(arr)}, expected {shape_of(np.empty(shape))}")


def tolerance(rtol: float = RTOL, atol: float = ATOL, want: Any = None) -> tuple[float, float]:
    """(rtol, atol) for comparing with `want` at the precision this file is judged at (attnprep.precision)."""
    if precision.current() == precision.FLOAT64:
        return rtol, atol
    scale = precision.scale_of(want) if want is not None else 1.0
    return precision.tolerance(rtol, atol, scale, _tally().allowance)


def isclose(a: Any, b: Any, rtol: float = RTOL, atol: float = ATOL, equal_nan: bool = False) -> np.ndarray:
    """np.isclose with the tolerances of the precision being judged (b is the expected side)."""
    r, t = tolerance(rtol, atol, b)
    with np.errstate(all="ignore"):
        return np.isclose(a, b, rtol=r, atol=t, equal_nan=equal_nan)


def _all_finite_and_close(a: Any, b: Any, rtol: float, atol: float) -> bool:
    """|a - b| <= atol + rtol |b| everywhere with b finite, np.isclose's own test, in a few operations where
    np.isclose takes a dozen: the judge asks this a few hundred times a file, nearly always of results that
    pass. False (ask np.isclose) for anything it cannot settle: a NaN or inf anywhere. Call under np.errstate."""
    if not all(type(x) is np.ndarray or isinstance(x, (int, float, np.generic)) for x in (a, b)):
        return False  # lists, subclasses (a masked array): np.isclose's own way
    try:
        dtype = np.result_type(a, b, 1.0)  # np.isclose's: float64, or longdouble or complex as given
        size = np.abs(np.asarray(b, dtype=dtype))
        if not np.isfinite(size).all():  # inf <= inf: np.isclose treats infinities apart
            return False
        return bool((np.abs(np.subtract(a, b, dtype=dtype)) <= atol + rtol * size).all())
    except (TypeError, ValueError):  # not numbers, or shapes that do not broadcast: np.isclose says what it says
        return False


def allclose(a: Any, b: Any, rtol: float = RTOL, atol: float = ATOL, equal_nan: bool = False) -> bool:
    """np.allclose with the tolerances of the precision being judged (b is the expected side)."""
    try:
        r, t = tolerance(rtol, atol, b)
        with np.errstate(all="ignore"):
            if _all_finite_and_close(a, b, r, t):
                return True
        return bool(np.all(isclose(a, b, rtol, atol, equal_nan)))
    except ValueError:  # shapes that do not broadcast
        return False


def worst_entry(got: np.ndarray, want: np.ndarray, rtol: float, atol: float) -> tuple | None:
    """Index of the entry furthest outside tolerance (at the precision being judged), or None if all are close."""
    rtol, atol = tolerance(rtol, atol, want)
    with np.errstate(all="ignore"):
        if _all_finite_and_close(got, want, rtol, atol):
            return None
        bad = ~np.isclose(got, want, rtol=rtol, atol=atol, equal_nan=True)
        if not bad.any():
            return None
        err = np.where(bad, np.abs(got - want), -1.0)
        err = np.where(np.isnan(err), np.inf, err)
    return tuple(int(i) for i in np.unravel_index(int(np.argmax(err)), got.shape))


def fmt_pair(got: float, want: float) -> tuple[str, str]:
    """Two numbers with just enough digits to see that they differ (6 when they differ there already)."""
    for digits in (6, 8, 10, 12, 17):
        a, b = f"{got:.{digits}g}", f"{want:.{digits}g}"
        if a != b:
            return a, b
    return a, b


def is_expected(got: Any, want: Any) -> str:
    """`is 0.40236311, expected 0.40236331 (relative error 5e-07)`: a wrong number beside the right one, with the
    digits it takes to see the difference."""
    try:
        g, w = float(got), float(want)
    except (TypeError, ValueError):
        return f"is {fmt(got)}, expected {fmt(want)}"
    if not (np.isfinite(g) and np.isfinite(w)) or g == w:
        return f"is {fmt(g)}, expected {fmt(w)}"
    a, b = fmt_pair(g, w)
    rel = f" (relative error {abs(g - w) / abs(w):.2g})" if w != 0 else ""
    return f"is {a}, expected {b}{rel}"


def difference_text(got: float, want: float, rtol: float, atol: float) -> str:
    """`relative error 3.1e-05, tolerance 1e-06`: how far off, and how far off was allowed."""
    with np.errstate(all="ignore"):
        if not (np.isfinite(got) and np.isfinite(want)):
            return ""
        diff = abs(got - want)
        allowed = atol + rtol * abs(want)
        if want != 0 and (rtol * abs(want) >= atol or diff > 10 * atol):
            return f"relative error {diff / abs(want):.2g}, tolerance {allowed / abs(want):.2g}"
    return f"difference {diff:.2g}, tolerance {allowed:.2g}"


def _rounding_note(arr: np.ndarray, want: np.ndarray, atol: float = ATOL) -> str:
    """For float64 results off by no more than float32 rounding: say so, rather than let a formula take the blame.

    Entries far below the largest count relative to the largest (1e-3 of the scale), unless the comparison itself
    is relative down to tiny values (atol below 1e-12): then a tiny entry flushed to 0 is no rounding."""
    if precision.current() != precision.FLOAT64:
        return ""
    with np.errstate(all="ignore"):
        scale = precision.scale_of(want)
        floor = 1e-3 * scale if atol >= 1e-12 else 1e-300
        worst = np.abs(arr - want) / np.maximum(np.abs(want), floor)
        worst = float(np.max(worst, initial=0.0)) if np.isfinite(worst).all() else np.inf
    if worst <= 1e-4:
        return ("every entry is within 1e-4 of the expected one: a difference the size of float32 rounding (or of "
                "an eps), not of a wrong formula")
    return ""


def check_close(got: Any, want: Any, what: str, rtol: float = RTOL, atol: float = ATOL,
                context: str = "", question: str = "") -> np.ndarray:
    """Fail with one concrete wrong entry when `got` is not close to `want`.

    `context` describes the inputs ("scores near 300"); `question` asks about precision ("is everything
    computed in float64?") and is shown only when the difference is rounding-sized: a larger one is no
    precision problem, and asking would point the learner the wrong way."""
    arr = as_float(got, what)
    want = np.asarray(want, dtype=np.float64)
    check_shape(arr, want.shape, what)
    rtol, atol = tolerance(rtol, atol, want)
    idx = worst_entry(arr, want, rtol, atol)
    if idx is not None:
        where = f": entry [{', '.join(map(str, idx))}]" if idx else ""
        with np.errstate(all="ignore"):
            total = int((~np.isclose(arr, want, rtol=rtol, atol=atol, equal_nan=True)).sum())
        g, w = float(arr[idx]), float(want[idx])
        if np.isfinite(g) and np.isfinite(w):
            shown_got, shown_want = fmt_pair(g, w)
        else:
            shown_got, shown_want = fmt(g), fmt(w)
        diff = difference_text(g, w, rtol, atol)
        rounding = _rounding_note(arr, want, atol)
        if question and rounding:  # a float64 result off by float32-sized rounding: the question is the point
            context = f"{context}: {question}" if context else question
        details = "; ".join(x for x in (f"{total:,} of {arr.size:,} entries differ", diff, rounding, context) if x)
        raise Fail(f"{what}{where} is {shown_got}, expected {shown_want} ({details})")
    return arr


def softmax_divisor(weights: np.ndarray, scores: np.ndarray, *, rtol: float = 1e-6) -> float | None:
    """The c with weights = softmax(scores / c) over the last axis, judged from the keys given weight.

    Only ratios of weights within a row are used, and keys with zero weight are left out, so a wrong
    mask or a missing normalisation does not hide (or fake) the scale. Rows that are no softmax of
    their scores at all (say, a fully masked row spread evenly) are passed over; None when no row
    is one (rows with fewer than three weighted keys do not count), or when those that are disagree.
    """
    w = np.asarray(weights, dtype=np.float64).reshape(-1, weights.shape[-1])
    s = np.broadcast_to(np.asarray(scores, dtype=np.float64), weights.shape).reshape(w.shape)
    # float32 weights carry their own rounding into the logarithm: the fit may be off by that much.
    fit = 1e-6 if precision.current() == precision.FLOAT64 else precision.RTOL32
    rtol = max(rtol, fit)
    found = []
    for w_row, s_row in zip(w, s, strict=True):
        keep = np.isfinite(w_row) & (w_row > 1e-200)
        if keep.sum() < 3 or np.ptp(s_row[keep]) < 1e-9:
            continue  # two points fit any line: only rows with three or more weighted keys are evidence
        x, y = s_row[keep] - s_row[keep].mean(), np.log(w_row[keep])
        if np.ptp(y) < 1e-6:
            continue  # even weights over differing scores (a fully masked row): no evidence of any c
        slope = float(x @ (y - y.mean()) / (x @ x))
        if slope > 0 and np.abs(y - y.mean() - slope * x).max() <= fit * max(1.0, np.abs(y).max()):
            found.append(1.0 / slope)
    if not found or max(found) - min(found) > rtol * max(found):
        return None
    return median(found)


def divisor_unreadable(weights: np.ndarray) -> str:
    """Why softmax_divisor found no divisor, as the end of a sentence that starts with the weights."""
    with np.errstate(all="ignore"):
        weighted = (np.isfinite(weights) & (weights > 1e-200)).sum(axis=-1)
    if (weighted >= 3).any():
        return ("are not softmax(q k^T / c) over the keys for any single number c: the weights of the keys a row "
                "attends to do not follow the scores")
    return "give no query row weight on three or more keys, which it takes to read the divisor"


def row_shift_problem(rng: np.random.Generator, t: int, d_k: int, d_v: int,
                      along: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """q, k, v with scores of about 1, and a unit vector u: q[i] has the component along[i] on u, every key none.

    Adding m * u to every key then adds m * along[i] to every score q[i] . k[j] of row i, which attention must
    ignore (a softmax does not change when a whole row of scores moves by one number): a `stable` check can hold
    the candidate to its own result at ordinary scores, whatever else it gets wrong. Adding it to one key alone
    raises only that key's scores.
    """
    u = rng.normal(size=d_k)
    u /= np.linalg.norm(u)
    q = rng.normal(size=(t, d_k))
    q += (np.asarray(along, dtype=np.float64) - q @ u)[:, None] * u
    k = rng.normal(size=(t, d_k))
    k -= (k @ u)[:, None] * u
    return q, k, rng.normal(size=(t, d_v)), u


def check_finite(arr: np.ndarray, what: str, context: str = "") -> None:
    bad = ~np.isfinite(arr)
    if bad.any():
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        ctx = f" ({context})" if context else ""
        raise Fail(f"{what}: entry [{', '.join(map(str, idx))}] is {fmt(arr[idx])}, overflow or 0/0{ctx}")


def _at(idx: tuple) -> str:
    return ", ".join(str(int(i)) for i in idx)


def check_rows_sum_to_one(weights: np.ndarray, what: str, atol: float = 1e-6) -> None:
    """Fail with the first row (last axis) of attention weights whose sum is not 1, nan included."""
    sums = weights.sum(axis=-1)
    bad = ~np.isclose(sums, 1.0, rtol=0.0, atol=atol)
    if bad.any():
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        nan = " (a 0/0 in this row's softmax: is every key of the row masked?)" if np.isnan(sums[idx]) else ""
        raise Fail(f"{what}: row weights[{_at(idx)}, :] sums to {fmt(sums[idx])}, expected 1: each query's "
                   f"weights over the keys (the last axis) must sum to one{nan}")


def check_causal_zeros(weights: np.ndarray, what: str) -> None:
    """The diagonal is attended (> 0) and every weight strictly above it is exactly 0.0 (nan is not).

    Use moderate scores: at gaps of ~745 a correct diagonal weight underflows to 0.0.
    """
    T = weights.shape[-1]
    diag = weights[..., np.arange(T), np.arange(T)]
    bad = ~(diag > 0)
    if bad.any():
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        lead, t = idx[:-1], idx[-1]
        entry = f"weights[{_at(lead + (t, t))}]"
        if np.isnan(diag[idx]) and t == 0:
            raise Fail(f"{what}: {entry} is nan: position 0 may attend only to itself, so a mask that also "
                       f"covers the diagonal leaves its row empty (0/0)")
        raise Fail(f"{what}: {entry} is {fmt(diag[idx])}: the diagonal must not be masked; position {t} "
                   f"always attends to itself")
    leak = np.triu(np.ones((T, T), dtype=bool), k=1) & ~(weights == 0.0)
    if leak.any():
        idx = tuple(int(i) for i in np.argwhere(leak)[0])
        i, j = idx[-2:]
        nan = f" (row {i} has a 0/0 in its softmax)" if np.isnan(weights[idx]) else ""
        raise Fail(f"{what}: weights[{_at(idx)}] is {fmt(weights[idx])}, expected exactly 0.0: query {i} must "
                   f"not attend to the later key {j}{nan}")


def _entry_pair(before: Any, after: Any) -> tuple[str, str]:
    """An entry before and after, with the digits it takes to see the change (a scale-and-restore moves one ulp)."""
    try:
        b, a = float(before), float(after)
    except (TypeError, ValueError):
        return fmt(before), fmt(after)
    return fmt_pair(b, a) if np.isfinite(a) and np.isfinite(b) else (fmt(b), fmt(a))


def changed_in_place(before: Any, after: Any, what: str, held: bool = False) -> str | None:
    """How `after` differs from the argument `before` a call was given ("q was modified in place: ..."), or None.

    Arrays are compared entry by entry (nan equals nan), dicts key by key (a key added, removed or changed all
    count), lists and tuples item by item; other values (numbers, an rng) cannot be changed in place. `held`:
    `before` sits in a dict or list the call was given, where a new value for the key looks the same from here
    as an array written into, so the message says "was changed", not "modified in place".
    """
    verb = "was changed" if held else "was modified in place"
    if isinstance(before, np.ndarray):
        after_arr = None
        if not isinstance(after, (Unsupported, dict, str)) and after is not None:
            try:
                after_arr = np.asarray(after)
            except (ValueError, TypeError):
                after_arr = None
        if after_arr is None or after_arr.dtype.hasobject or after_arr.shape != before.shape:
            now = shape_of(after_arr) if after_arr is not None else type(after).__name__
            return f"{what} {verb} (it is now {now})"
        if after_arr.dtype == before.dtype and after_arr.tobytes() == before.tobytes():
            return None  # the same bytes: unchanged (the usual case, and ten times quicker than comparing entries)
        with np.errstate(all="ignore"):
            same = after_arr == before
            if before.dtype.kind in "fc" and after_arr.dtype.kind in "fc":
                same = same | (np.isnan(after_arr) & np.isnan(before))
        if not np.all(same):
            i = tuple(int(v) for v in np.argwhere(~np.asarray(same))[0])
            was, now = _entry_pair(before[i], after_arr[i])
            return f"{what} {verb}: entry {list(i)} went from {was} to {now}"
        return None
    if isinstance(before, dict):
        if not isinstance(after, dict):
            return f"the dict {what} was replaced in place"
        added = [k for k in after if k not in before]
        removed = [k for k in before if k not in after]
        if added:
            return f"the key {added[0]!r} was added to the dict {what}"
        if removed:
            return f"the key {removed[0]!r} was removed from the dict {what}"
        for key, value in before.items():
            change = changed_in_place(value, after.get(key), f"{what}[{key!r}]", held=True)
            if change:
                return change
        return None
    if isinstance(before, (list, tuple)) and any(isinstance(v, (np.ndarray, dict, list, tuple)) for v in before):
        if not isinstance(after, (list, tuple)) or len(after) != len(before):
            return f"the {type(before).__name__} {what} was modified in place (its length changed)"
        for i, (b, a) in enumerate(zip(before, after, strict=True)):
            change = changed_in_place(b, a, f"{what}[{i}]", held=True)
            if change:
                return change
    return None


def _value_text(value: Any) -> str:
    """An argument as evidence: arrays by shape, dicts by their keys, numbers as written."""
    if isinstance(value, np.ndarray):
        return shape_of(value)
    if isinstance(value, dict):
        return "{" + ", ".join(map(str, value)) + "}"
    if isinstance(value, RngSpec):
        return "rng"
    if isinstance(value, (list, tuple)) and any(isinstance(v, np.ndarray) for v in value):
        return "(" + ", ".join(_value_text(v) for v in value) + ")"
    return fmt(value) if isinstance(value, float) else repr(value)


def call_text(fn: str, names: list[str], args: tuple, kwargs: dict) -> str:
    """A call as evidence: `causal_attention(q (6, 4), k (6, 4), v (6, 3))`, arrays by shape."""
    shown = [(names[i] if i < len(names) else None, a) for i, a in enumerate(args)] + list(kwargs.items())
    parts = []
    for name, value in shown:
        text = _value_text(value)
        if name is None:
            parts.append(text)
        else:
            parts.append(f"{name} {text}" if isinstance(value, (np.ndarray, dict, list, tuple)) else f"{name}={text}")
    return f"{fn}({', '.join(parts)})"


def check_unchanged(before: Any, after: Any, what: str) -> None:
    """Fail if the candidate modified an argument in place."""
    change = changed_in_place(before, after, what)
    if change:
        raise Fail(f"{change}; work on a copy")


def expect_raises(cand: Candidate, exc_name: str, fn: str, *args: Any, what: str = "",
                  **kwargs: Any) -> None:
    """Fail unless the call raises `exc_name` (or a subclass of it)."""
    label = what or f"{fn} with bad input"
    try:
        cand.call(fn, *args, **kwargs)
    except CandidateError as err:
        if err.not_implemented or err.is_a(exc_name):
            if err.not_implemented:
                raise
            _tally().expected_raises += 1
            return
        raise Fail(f"{label} raised {err.type_name}, expected {exc_name}") from None
    raise Fail(f"{label} returned normally, expected it to raise {exc_name}")


def rng_spec(seed: int) -> RngSpec:
    """An argument that becomes `np.random.default_rng(seed)` in the worker."""
    return RngSpec(int(seed))
