"""Runs an exercise's invariants as a plain pytest file, in-process, with no isolation.

This is the anchor of benchmarks/bench.py: what a hand-written test file of
the same checks would cost. Pick the candidate with ATTNPREP_BENCH_FILE and
the exercise with ATTNPREP_BENCH_EXERCISE.
"""

import copy
import importlib.util
import os

import numpy as np
import pytest

from attnprep import catalogue
from attnprep.wire import RngSpec


def _load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class DirectCandidate:
    """The same interface as attnprep.grading.Candidate, calling the functions directly."""

    def __init__(self, module):
        self._module = module

    def __getattr__(self, name):
        return lambda *a, **k: self.call(name, *a, **k)

    @staticmethod
    def _prepare(args, kwargs):
        def conv(v):
            return np.random.default_rng(v.seed) if isinstance(v, RngSpec) else copy.deepcopy(v)

        return [conv(a) for a in args], {k: conv(v) for k, v in kwargs.items()}

    def call(self, fn, *args, **kwargs):
        args, kwargs = self._prepare(args, kwargs)
        return getattr(self._module, fn)(*args, **kwargs)

    def call_tracking_args(self, fn, *args, **kwargs):
        args, kwargs = self._prepare(args, kwargs)
        return getattr(self._module, fn)(*args, **kwargs), args, kwargs

    def repeat(self, n, fn, *args, **kwargs):
        args, kwargs = self._prepare(args, kwargs)
        return [getattr(self._module, fn)(*args, **kwargs) for _ in range(n)]

    def call_traced(self, fn, *args, **kwargs):
        import tracemalloc

        args, kwargs = self._prepare(args, kwargs)
        tracemalloc.start()
        try:
            result = getattr(self._module, fn)(*args, **kwargs)
            return result, tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()


EXERCISE = catalogue.get(os.environ.get("ATTNPREP_BENCH_EXERCISE", "softmax"))
GRADER = _load(EXERCISE.grader_path, "bench_grader")
REFERENCE = _load(EXERCISE.solution_path, "bench_reference")
CHECKS = [f for f in vars(GRADER).values() if callable(f) and hasattr(f, "invariant_id")]


@pytest.fixture(scope="session")
def candidate():
    return DirectCandidate(_load(os.environ.get("ATTNPREP_BENCH_FILE", EXERCISE.solution_path), "bench_candidate"))


def pytest_generate_tests(metafunc):
    if "check" in metafunc.fixturenames:
        metafunc.parametrize("check", CHECKS, ids=[c.invariant_id for c in CHECKS])
