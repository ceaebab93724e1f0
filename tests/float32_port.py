"""Float32 twins of corpus files: the same code, fed float32 arrays and returning float32 results.

A twin is the file's source, its float64 spelled float32, plus a wrapper around each function the exercise asks
for. The wrapper casts every
float64 array argument to float32 (so code that keeps its input's dtype computes in float32), casts every float
array it returns to float32, and copies a change the function made to a float32 argument back into the caller's
array (so an in-place mistake stays visible). This is how people's float32 code behaves: a correct file's twin
must pass at every seed, and a wrong file's twin must still fail.

    python tests/float32_port.py [SLUG ...] [--wrong] [--seeds N]   # a quick dev loop
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent.parent / "src"))
    sys.path.insert(0, str(Path(__file__).parent))

# Exercises whose results are float arrays (params and kvcache count parameters and bytes).
FLOAT_EXERCISES = ("attention", "block", "causal", "decode", "flash", "gqa", "mha", "moe", "rmsnorm",
                   "rope", "sampling", "softmax", "swiglu", "window", "xent")

_WRAPPER = '''

# ---- float32 twin (tests/float32_port.py) ----
import numpy as _np32


def _to_f32(value, _np=_np32):
    if isinstance(value, _np.ndarray) and value.dtype == _np.float64:
        return value.astype(_np.float32)
    if isinstance(value, dict):
        return {k: _to_f32(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_to_f32(v) for v in value)
    return value


def _result_f32(value, _np=_np32):
    if isinstance(value, _np.ndarray) and value.dtype.kind == "f":
        return value.astype(_np.float32)
    if isinstance(value, dict):
        return {k: _result_f32(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_result_f32(v) for v in value)
    return value


def _copy_back(original, sent, before, _np=_np32):
    if isinstance(original, _np.ndarray) and isinstance(sent, _np.ndarray) and sent is not original:
        if not _np.array_equal(sent, before, equal_nan=True):
            original[...] = sent
    elif isinstance(original, dict) and isinstance(sent, dict):
        for k in list(original):
            if k in sent:
                _copy_back(original[k], sent[k], before.get(k))
            elif k in before:
                del original[k]  # the function deleted a key of the caller's dict
        for k in sent:
            if k not in original and k not in before:
                original[k] = sent[k]  # ... or added one
    elif isinstance(original, (list, tuple)) and isinstance(sent, (list, tuple)):
        for o, s, b in zip(original, sent, before):
            _copy_back(o, s, b)


def _snapshot(value, _np=_np32):
    if isinstance(value, _np.ndarray):
        return value.copy()
    if isinstance(value, dict):
        return {k: _snapshot(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_snapshot(v) for v in value]
    return value


def _twin(fn):
    def twin(*args, **kwargs):
        sent_args, sent_kwargs = _to_f32(args), _to_f32(kwargs)
        before = _snapshot((sent_args, sent_kwargs))
        try:
            return _result_f32(fn(*sent_args, **sent_kwargs))
        finally:
            _copy_back((args, kwargs), (sent_args, sent_kwargs), before)
    twin.__name__, twin.__doc__ = fn.__name__, fn.__doc__
    return twin


for _name in {names!r}:
    if callable(globals().get(_name)):
        globals()[_name] = _twin(globals()[_name])
'''


# The file's own float64 becomes float32, as a float32 author writes it: a twin that cast its float32 inputs back
# to float64 would be float64 code in disguise (and its float64 mistakes float64 ones).
_PORTS = ((re.compile(r"\bnp\.float64\b"), "np.float32"),
          (re.compile(r"\bnumpy\.float64\b"), "numpy.float32"),
          (re.compile(r"\bdtype=float\b"), "dtype=np.float32"),
          (re.compile(r"\.astype\(float\)"), ".astype(np.float32)"),
          (re.compile(r"(['\"])float64\1"), r"\1float32\1"))


def twin_source(source: str, functions: list[str] | tuple[str, ...]) -> str:
    """The float32 twin of a solution's source."""
    for pattern, replacement in _PORTS:
        source = pattern.sub(replacement, source)
    return source + _WRAPPER.replace("{names!r}", repr(tuple(functions)))


if __name__ == "__main__":
    from corpus import cases

    from attnprep import catalogue
    from attnprep.engine import grade, grader_module

    args = sys.argv[1:]
    wrong = "--wrong" in args
    seeds = int(args[args.index("--seeds") + 1]) if "--seeds" in args else 1
    wanted = [a for a in args if not a.startswith("--") and not a.isdigit()]
    bad = 0
    for case in cases():
        if case.slug not in FLOAT_EXERCISES or (wanted and case.slug not in wanted):
            continue
        if case.passes == wrong:
            continue
        ex = catalogue.get(case.slug)
        source = twin_source(case.path.read_text(encoding="utf-8"), grader_module(ex).FUNCTIONS)
        for seed in range(seeds):
            report = grade(ex, source, str(case.path), seed=seed, timeout=30.0)
            if report.precision != "float32":  # the file returns lists or float64 of its own: no float32 twin
                continue
            ok = (report.status == "pass") != wrong
            bad += not ok
            if not ok or "-v" in args:
                failed = ", ".join(f"{i.id}: {i.message}" for i in report.invariants if not i.passed)
                line = f"{'ok ' if ok else 'BAD'} {case.id} seed {seed} {report.status} {failed or report.message}"
                print(line[:600])
    print(f"{bad} bad")
    sys.exit(1 if bad else 0)
