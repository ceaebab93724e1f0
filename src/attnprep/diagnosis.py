"""Name known mistakes by behaviour: compare the candidate with wrong variants of the reference.

A grader module may define `probes(rng)`, yielding (function name, args,
kwargs), and functions marked with `@mistake`. A mistake is recognised when,
on every probe of its function that tells it apart from the reference, the
candidate's output matches the variant's (raising the same exception counts
as matching) and so do the array arguments as the call left them, which is
how an in-place mistake shows. Integer results (counts, sizes, token ids) must be equal, floats close. A
variant that draws fresh randomness matches a candidate whose answers do not repeat either, where the
reference's do. The source is never read.
"""

from __future__ import annotations

import contextlib
import contextvars
import copy
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

import numpy as np

from attnprep.grading import Candidate, CandidateError, Fail, allclose
from attnprep.wire import RngSpec

_RTOL, _ATOL = 1e-5, 1e-8
# A grader may set DIAGNOSIS_ATOL: softmax sets 0, so that a mistake which only moves tiny probabilities (a floor
# of 1e-12 added, everything below 1e-15 flushed, exp clipped at -700) can be told apart on its probes.
_atol_now: contextvars.ContextVar[float] = contextvars.ContextVar("diagnosis_atol", default=_ATOL)


@contextlib.contextmanager
def tolerance_of(module: ModuleType) -> Iterator[None]:
    """Compare outcomes with the grader's DIAGNOSIS_ATOL (default 1e-8) inside."""
    token = _atol_now.set(float(getattr(module, "DIAGNOSIS_ATOL", _ATOL)))
    try:
        yield
    finally:
        _atol_now.reset(token)


def mistakes_of(module: ModuleType) -> list[Callable]:
    return [f for f in vars(module).values() if callable(f) and hasattr(f, "mistake_id")]


def _leaves(value: Any) -> list[np.ndarray] | None:
    """A result as a flat list of arrays (integers kept as int64, the rest float64), or None if not numeric data."""
    if isinstance(value, (tuple, list)) and value and all(isinstance(v, (tuple, list, np.ndarray)) for v in value):
        out: list[np.ndarray] = []
        for v in value:
            leaves = _leaves(v)
            if leaves is None:
                return None
            out += leaves
        return out
    try:
        arr = np.asarray(value)
    except (ValueError, TypeError):
        return None
    if arr.dtype.hasobject or arr.dtype.kind not in "biuf":
        return None
    return [arr.astype(np.int64 if arr.dtype.kind in "iu" else np.float64)]


def _integer_arrays(probe: tuple[str, tuple, dict]) -> bool:
    """Does a probe pass an integer array (which a PyTorch file may refuse for reasons of its own)?"""
    _, args, kwargs = probe
    return any(isinstance(a, np.ndarray) and a.dtype.kind in "iu" for a in (*args, *kwargs.values()))


def _same_args(a: Any, b: Any) -> bool:
    """Array arguments (also inside dicts and lists) equal after the call, and dicts with the same keys (a key
    added to the caller's dict shows); other values are not compared."""
    if isinstance(a, dict) and isinstance(b, dict):
        return set(a) == set(b) and all(_same_args(a.get(k), b.get(k)) for k in b)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and len(a) == len(b):
        return all(_same_args(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(b, np.ndarray):
        la, lb = _leaves(a), _leaves(b)
        return la is not None and lb is not None and len(la) == 1 and _close(la[0], lb[0])
    return True


def _close(x: np.ndarray, y: np.ndarray) -> bool:
    """Integers equal, floats close: the worker's BLAS (one thread) may round a product differently."""
    if x.shape != y.shape:
        return False
    if x.dtype.kind == y.dtype.kind == "i":
        return bool(np.array_equal(x, y))
    return allclose(x, y, rtol=_RTOL, atol=_atol_now.get(), equal_nan=True)


def _same(a: Any, b: Any) -> bool:
    """Two outcomes of a call: an exception, or (result, arguments after the call)."""
    if isinstance(a, BaseException) or isinstance(b, BaseException):
        if isinstance(a, CandidateError) and isinstance(b, BaseException) and not isinstance(b, CandidateError):
            return a.is_a(type(b).__name__)
        if isinstance(a, BaseException) and isinstance(b, BaseException):  # two local runs that both raised
            return type(a) is type(b)
        return False
    (a, args_a), (b, args_b) = a, b
    if not _same_args(args_a, args_b):
        return False
    la, lb = _leaves(a), _leaves(b)
    if la is None or lb is None or len(la) != len(lb):
        return False
    with np.errstate(all="ignore"):
        return all(_close(x, y) for x, y in zip(la, lb, strict=True))


def _as_worker_sees(value: Any) -> Any:
    """An rng stand-in as the worker builds it: a fresh np.random.default_rng(seed)."""
    return np.random.default_rng(value.seed) if isinstance(value, RngSpec) else value


def _run_local(fn: Callable, args: tuple, kwargs: dict) -> Any:
    """(result, the arguments as the call left them), or the exception it raised."""
    copies = [_as_worker_sees(a) for a in copy.deepcopy(list(args))]
    kw = {k: _as_worker_sees(v) for k, v in copy.deepcopy(kwargs).items()}
    try:
        with np.errstate(all="ignore"):
            return fn(*copies, **kw), copies
    except Exception as exc:  # a variant that raises documents a crashing mistake
        return exc


# Reruns that must all repeat an outcome for it to count as reproducible: a fresh draw from a peaked distribution
# (a top token of probability 0.3, say) repeats 5 times in a row once in 400.
RERUNS = 5


def _outcome(fn: Callable, args: tuple, kwargs: dict, first: Any = None) -> tuple[Any, bool]:
    """The outcome of a local run, and whether RERUNS more runs repeat it (not when it draws fresh randomness)."""
    first = _run_local(fn, args, kwargs) if first is None else first
    return first, all(_same(first, _run_local(fn, args, kwargs)) for _ in range(RERUNS))


def diagnose(module: ModuleType, ref: ModuleType, cand: Candidate, rng: np.random.Generator,
             other_framework: bool = False) -> list[dict[str, str]]:
    """The known mistakes the candidate's outputs match, in the grader's order.

    other_framework: the candidate is not NumPy code (PyTorch), so a probe it raised on where the variant (NumPy)
    returned says nothing of the mistake (integer weights, say: NumPy promotes int @ float, torch refuses it)
    and is passed over; where the variant raised and the reference did not, they agree, whatever the exception's
    name; but a refusal of integer arrays (torch will not mix them with floats) under another name names nothing
    on its own; where both raised, the candidate's exception must be the variant's, not the reference's.
    """
    with tolerance_of(module):
        return _diagnose(module, ref, cand, rng, other_framework)


class _Table:
    """The half of a diagnosis that does not depend on the candidate: the probes, the reference's outcome on each
    (and whether it repeats), and each variant's outcome on the probes of its function that tell it apart.

    `grade` diagnoses every file of a class with the same seed, so this is built once per grader, seed and
    precision and shared by the files (threads included: two that build it at once build equal tables)."""

    def __init__(self, module: ModuleType, ref: ModuleType, rng: np.random.Generator) -> None:
        self.module, self.ref = module, ref  # the key holds their ids, which a module loaded later may reuse
        self.probes = list(module.probes(rng))
        self.rng_after = rng.bit_generator.state
        default_fn = module.FUNCTIONS[0]
        rights: dict[int, tuple[Any, bool]] = {}  # the reference's outcome of each probe, once for all variants
        # Per variant: (probe index, the variant's outcome, whether the reference's repeats, a slot for whether
        # the variant's does, worked out only when a candidate's answer needs it, the reference's outcome).
        self.telling: list[tuple[Callable, list[list[Any]]]] = []
        # Per variant: the probes of its function where it gives the reference's outcome, with that outcome.
        self.agreeing: list[list[tuple[int, Any]]] = []
        for variant in mistakes_of(module):
            target = variant.mistake_fn or default_fn
            entries, agreeing = [], []
            for i, (fn, args, kwargs) in enumerate(self.probes):
                if fn != target:
                    continue
                wrong = _run_local(variant, args, kwargs)
                if i not in rights:
                    rights[i] = _outcome(getattr(ref, fn), args, kwargs)
                right, steady = rights[i]
                entry = [i, wrong, steady, None, right]
                if not steady and not self.variant_repeats(variant, entry):
                    continue  # both draw from fresh randomness (no rng passed, say): no telling them apart
                if _same(wrong, right):
                    if steady:  # the mistake behaves as the reference here (see _explains_the_rest)
                        agreeing.append((i, right))
                    continue  # this probe cannot tell the mistake from the reference
                entries.append(entry)
            self.telling.append((variant, entries))
            self.agreeing.append(agreeing)

    def variant_repeats(self, variant: Callable, entry: list[Any]) -> bool:
        if entry[3] is None:
            fn, args, kwargs = self.probes[entry[0]]
            entry[3] = _outcome(variant, args, kwargs, first=entry[1])[1]
        return entry[3]


_TABLES: dict[tuple, _Table] = {}
_TABLES_KEPT = 8  # a grade run uses one; tests and dev check cycle through a few graders and seeds


def _table(module: ModuleType, ref: ModuleType, rng: np.random.Generator) -> _Table:
    from attnprep import precision

    key = (id(module), id(ref), repr(rng.bit_generator.state), precision.current(), _atol_now.get())
    table = _TABLES.get(key)
    if table is None or table.module is not module or table.ref is not ref:
        table = _Table(module, ref, rng)
        if len(_TABLES) >= _TABLES_KEPT:
            _TABLES.clear()
        _TABLES[key] = table
    else:
        rng.bit_generator.state = table.rng_after  # as if the probes had been drawn again
    return table


def _diagnose(module: ModuleType, ref: ModuleType, cand: Candidate, rng: np.random.Generator,
              other_framework: bool) -> list[dict[str, str]]:
    if not mistakes_of(module) or not hasattr(module, "probes"):
        return []
    table = _table(module, ref, rng)
    probes = table.probes

    def ask(fn: str, args: tuple, kwargs: dict) -> Any:
        # A copy: the table's probes serve every file, and an in-process candidate (the benchmark's) could
        # change its arguments in place.
        args, kwargs = copy.deepcopy(args), copy.deepcopy(kwargs)
        try:
            result, args_after, _ = cand.call_tracking_args(fn, *args, **kwargs)
            return result, args_after
        except (CandidateError, Fail) as exc:
            return exc

    answers = [ask(fn, args, kwargs) for fn, args, kwargs in probes]
    repeats: dict[int, bool] = {}  # whether the candidate gives its answer again on the same probe

    def candidate_repeats(i: int) -> bool:
        if i not in repeats:
            fn, args, kwargs = probes[i]
            repeats[i] = all(_same(ask(fn, args, kwargs), answers[i]) for _ in range(RERUNS))
        return repeats[i]

    found: list[tuple[Callable, set[int], set[int]]] = []  # (variant, probes it explains, deviations it does not)
    for (variant, entries), agreeing in zip(table.telling, table.agreeing, strict=True):
        if not _explains_the_rest(answers, agreeing):
            continue
        telling, explained, refusals_only = 0, set(), 0
        for entry in entries:
            i, wrong, steady = entry[0], entry[1], entry[2]
            got = answers[i]
            if other_framework and isinstance(got, CandidateError):
                # A PyTorch file refuses some calls on its own, under names of its own (RuntimeError where NumPy
                # says ValueError). Where the mistake raises and the reference returns, any refusal agrees with the
                # mistake; but on integer arrays, which torch refuses to mix with floats whatever the code, only
                # the mistake's own exception tells of it. Where both raise, the reference's contradicts it.
                right = entry[4]
                if not isinstance(wrong, BaseException):
                    continue
                own = got.is_a(type(wrong).__name__)
                if own or not isinstance(right, BaseException):
                    telling += 1
                    explained.add(i)
                    if not own and _integer_arrays(probes[i]):
                        refusals_only += 1
                elif got.is_a(type(right).__name__):
                    telling = -1
                    break
                continue
            if not _same(got, wrong):
                if steady and not table.variant_repeats(variant, entry) and not candidate_repeats(i):
                    # the variant draws fresh randomness where the reference is reproducible (it ignores the rng
                    # passed in, say): matched by a candidate whose answer does not repeat either
                    telling += 1
                    explained.add(i)
                    continue
                telling = -1
                break
            telling += 1
            explained.add(i)
        # Named only on some evidence of its own: a value the mistake gives, or its own exception.
        if telling > refusals_only and all(f[0].mistake_id != variant.mistake_id for f in found):
            # Where this mistake gives the reference's answer and the candidate does not, the candidate has some
            # other mistake too, or a broader one (a single maximum over the whole array also fails every probe
            # where a maximum over the blocked keys does).
            deviations = {i for i, right in agreeing if not _same(answers[i], right)
                          and not (other_framework and isinstance(answers[i], CandidateError))}
            found.append((variant, explained, deviations))
    return [{"id": v.mistake_id, "message": v.mistake_message} for v, explained, deviations in found
            if not _subsumed(explained, deviations, found)]


def _subsumed(explained: set[int], deviations: set[int], found: list[tuple[Callable, set[int], set[int]]]) -> bool:
    """Is a named mistake only a symptom of a broader one? Another named mistake explains every probe this one
    explains and also the candidate's deviations that this one does not: naming both would send the learner after
    a narrower bug they may not have. Two independent mistakes each leave the other's deviations unexplained, so
    both stay named."""
    return bool(deviations) and any(other_explained >= explained | deviations
                                    for _, other_explained, _ in found if other_explained is not explained)


def _explains_the_rest(answers: list[Any], agreeing: list[tuple[int, Any]]) -> bool:
    """Does the candidate refuse wherever the mistake refuses as the reference does? A file that returns a result
    where both raise (a negative size let through, say) is making some other mistake, and naming this one would
    send the learner after a bug they do not have. Values are not held to it: a file may have two mistakes."""
    return not any(isinstance(right, BaseException) and not isinstance(answers[i], BaseException)
                   for i, right in agreeing)
