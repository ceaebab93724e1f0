"""Name known mistakes by behaviour: compare the candidate with wrong variants of the reference.

A grader module may define `probes(rng)`, yielding (function name, args,
kwargs), and functions marked with `@mistake`. A mistake is recognised when,
on every probe of its function that tells it apart from the reference, the
candidate's output matches the variant's (raising the same exception counts
as matching) and so do the array arguments as the call left them, which is
how an in-place mistake shows. The source is never read.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np

from attnprep.grading import Candidate, CandidateError, Fail, allclose

_RTOL, _ATOL = 1e-5, 1e-8


def mistakes_of(module: ModuleType) -> list[Callable]:
    return [f for f in vars(module).values() if callable(f) and hasattr(f, "mistake_id")]


def _leaves(value: Any) -> list[np.ndarray] | None:
    """A result as a flat list of float arrays, or None if it is not numeric data."""
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
    return [arr.astype(np.float64)]


def _same_args(a: Any, b: Any) -> bool:
    """Array arguments (also inside dicts and lists) equal after the call; other values are not compared."""
    if isinstance(a, dict) and isinstance(b, dict):
        return all(_same_args(a.get(k), b.get(k)) for k in b)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and len(a) == len(b):
        return all(_same_args(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(b, np.ndarray):
        la = _leaves(a)
        return la is not None and len(la) == 1 and la[0].shape == b.shape and np.array_equal(
            la[0], b.astype(np.float64), equal_nan=True)
    return True


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
        return all(x.shape == y.shape and allclose(x, y, rtol=_RTOL, atol=_ATOL, equal_nan=True)
                   for x, y in zip(la, lb, strict=True))


def _run_local(fn: Callable, args: tuple, kwargs: dict) -> Any:
    """(result, the arguments as the call left them), or the exception it raised."""
    copies, kw = copy.deepcopy(list(args)), copy.deepcopy(kwargs)
    try:
        with np.errstate(all="ignore"):
            return fn(*copies, **kw), copies
    except Exception as exc:  # a variant that raises documents a crashing mistake
        return exc


def diagnose(module: ModuleType, ref: ModuleType, cand: Candidate, rng: np.random.Generator,
             other_framework: bool = False) -> list[dict[str, str]]:
    """The known mistakes the candidate's outputs match, in the grader's order.

    other_framework: the candidate is not NumPy code (PyTorch), so a probe it raised on where the variant (NumPy)
    returned says nothing of the mistake (integer weights, say: NumPy promotes int @ float, torch refuses it)
    and is passed over; where the variant raised too, they agree, whatever the exception's name.
    """
    variants = mistakes_of(module)
    if not variants or not hasattr(module, "probes"):
        return []
    default_fn = module.FUNCTIONS[0]
    probes = list(module.probes(rng))
    answers = []
    for fn, args, kwargs in probes:
        try:
            result, args_after, _ = cand.call_tracking_args(fn, *args, **kwargs)
            answers.append((result, args_after))
        except (CandidateError, Fail) as exc:
            answers.append(exc)
    found = []
    for variant in variants:
        target = variant.mistake_fn or default_fn
        telling = 0
        for (fn, args, kwargs), got in zip(probes, answers, strict=True):
            if fn != target:
                continue
            wrong = _run_local(variant, args, kwargs)
            right = _run_local(getattr(ref, fn), args, kwargs)
            if _same(wrong, right):
                continue  # this probe cannot tell the mistake from the reference
            if other_framework and isinstance(got, CandidateError):
                if not isinstance(wrong, BaseException):
                    continue  # a framework's own refusal, not the mistake's behaviour
                telling += 1  # both refused; the framework names its exception its own way (RuntimeError)
                continue
            if not _same(got, wrong):
                telling = -1
                break
            telling += 1
        if telling > 0 and all(f["id"] != variant.mistake_id for f in found):
            found.append({"id": variant.mistake_id, "message": variant.mistake_message})
    return found
