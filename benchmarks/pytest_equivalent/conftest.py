"""Runs an exercise's invariants as a plain pytest file, in-process, with no isolation.

This is an anchor of benchmarks/bench.py: what a hand-written test file of the
same checks would cost. The checks get attnprep's own Candidate, whose calls go
to the candidate module in this process instead of a worker (arguments and
results still pass through the codec, so each call sees copies, as in a worker).
Pick the candidate with ATTNPREP_BENCH_FILE and the exercise with
ATTNPREP_BENCH_EXERCISE.
"""

import importlib.util
import os
import random
import time
import tracemalloc

import numpy as np
import pytest

from attnprep import catalogue, engine, wire
from attnprep.grading import Candidate
from attnprep.runner import Reply


def _load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _copied(value):
    blobs: list[bytes] = []
    return wire.decode(wire.encode(value, blobs), blobs)


def in_process(path):
    """A `send` for Candidate: the worker's `call` and `reload` ops, run here on the file at `path`."""
    loaded = {"module": _load(path, "bench_candidate")}

    def send(header, blobs):
        if header.get("op") == "reload":
            loaded["module"] = _load(path, "bench_candidate")
            return Reply({"kind": "loaded", "missing": []})
        module = loaded["module"]
        fn = getattr(module, header["fn"])
        args = wire.decode(header.get("args", []), blobs, build_rng=True)
        kwargs = wire.decode(header.get("kwargs", {}), blobs, build_rng=True)
        if header.get("global_seed") is not None:  # as the worker does: NumPy's and Python's global state
            np.random.seed(int(header["global_seed"]))
            random.seed(int(header["global_seed"]))
        traced = bool(header.get("measure") or header.get("trace_memory"))
        if traced:
            tracemalloc.start()
        started = time.perf_counter()
        try:
            if header.get("repeat") is not None:
                result = [fn(*args, **kwargs) for _ in range(int(header["repeat"]))]
            else:
                result = fn(*args, **kwargs)
                if header.get("then"):
                    results = [result]
                    for extra in header["then"]:
                        raw = extra.get("args", [])
                        more = wire.decode([None if isinstance(a, dict) and "$prev" in a else a for a in raw],
                                           blobs, build_rng=True)
                        for i, a in enumerate(raw):
                            if isinstance(a, dict) and "$prev" in a:
                                value = results[int(a["$prev"])]
                                for step in a.get("index", []):
                                    value = value[int(step)]
                                more[i] = value
                        results.append(getattr(module, extra["fn"])(*more, **wire.decode(extra.get("kwargs", {}),
                                                                                          blobs, build_rng=True)))
                    result = results
        except Exception as exc:  # noqa: BLE001 - reported as the worker would
            return Reply({"kind": "exception", "type": type(exc).__name__,
                          "mro": [c.__name__ for c in type(exc).__mro__], "message": str(exc), "line": None})
        finally:
            peak = tracemalloc.get_traced_memory()[1] if traced else None
            if traced:
                tracemalloc.stop()
        reply = Reply({"kind": "result", "elapsed": time.perf_counter() - started, "peak_bytes": peak},
                      _copied(result), _copied(list(args)), _copied(dict(kwargs)))
        reply.memory_peak = peak
        return reply

    return send


EXERCISE = catalogue.get(os.environ.get("ATTNPREP_BENCH_EXERCISE", "softmax"))
GRADER, REFERENCE = engine.grader_module(EXERCISE), engine.reference_module(EXERCISE)
CHECKS = engine.invariants_of(GRADER)
SIGNATURES = engine.signatures_of(REFERENCE, list(GRADER.FUNCTIONS))


@pytest.fixture
def candidate():
    return Candidate(in_process(os.environ.get("ATTNPREP_BENCH_FILE", EXERCISE.solution_path)), SIGNATURES)


def pytest_generate_tests(metafunc):
    if "check" in metafunc.fixturenames:
        metafunc.parametrize("check", CHECKS, ids=[c.invariant_id for c in CHECKS])
