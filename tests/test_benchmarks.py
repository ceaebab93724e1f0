"""The anchors benchmarks/bench.py times attnprep against pass on the references (else bench.py stops)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("folder", ["pytest_equivalent", "lean_pytest"])
@pytest.mark.parametrize("slug", ["softmax", "mha"])
def test_the_benchmark_anchors_pass_on_the_reference(folder, slug):
    env = {**os.environ, "ATTNPREP_BENCH_FILE": str(ROOT / "solutions" / f"{slug}.py"),
           "ATTNPREP_BENCH_EXERCISE": slug}
    ran = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=", "-p",
                          "no:xdist", str(ROOT / "benchmarks" / folder)], capture_output=True, text=True, env=env,
                         cwd=ROOT, timeout=300)
    assert ran.returncode == 0, ran.stdout[-2000:]
