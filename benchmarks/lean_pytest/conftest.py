"""The checks a learner writes by hand for one exercise: the second anchor of benchmarks/bench.py.

ATTNPREP_BENCH_FILE names the candidate; ATTNPREP_BENCH_EXERCISE picks the test file (test_SLUG.py).
"""

import importlib.util
import os

import pytest


def pytest_ignore_collect(collection_path, config):
    wanted = os.environ.get("ATTNPREP_BENCH_EXERCISE", "softmax")
    return collection_path.name.startswith("test_") and collection_path.name != f"test_{wanted}.py"


@pytest.fixture(scope="session")
def solution():
    spec = importlib.util.spec_from_file_location("candidate", os.environ["ATTNPREP_BENCH_FILE"])
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
