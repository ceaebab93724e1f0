"""The sandbox and the fallback as a learner meets them: run by an ordinary user, not root.

Only when the tests run as root: attnprep is installed the way `pip install .` does it into a virtual
environment of the system's Python (readable by everyone), and each check runs as `nobody`. Skipped where
that cannot be set up (no system Python with venv, no package index). Run as an ordinary user, the other
test files already cover this.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from hostile_tools import ROOT, SOLUTIONS, only_json
from test_sandbox import FORGE_PROGRESS, FORGE_STDOUT, MANY_CHILDREN, RAISE_LIMITS, WRONG

NOBODY = 65534
pytestmark = pytest.mark.skipif(not (sys.platform.startswith("linux") and hasattr(os, "geteuid")
                                     and os.geteuid() == 0), reason="needs root, to run checks as nobody")


@pytest.fixture(scope="module")
def place(tmp_path_factory):
    """A world-readable directory with a venv of the system Python holding attnprep as pip installs it.

    Built once per test run: pytest-xdist workers share it (keyed by the run's id, under a lock).
    """
    import fcntl

    system = shutil.which("python3", path="/usr/bin:/bin")
    if system is None:
        pytest.skip("no system python3")
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    for old in Path(tempfile.gettempdir()).glob("attnprep-unprivileged-*"):  # left by runs hours ago
        if time.time() - old.stat().st_mtime > 3 * 3600:
            shutil.rmtree(old, ignore_errors=True)
    shared = Path(tempfile.gettempdir()) / f"attnprep-unprivileged-{run}" if run else tmp_path_factory.mktemp("u")
    shared.mkdir(exist_ok=True)
    shared.chmod(0o755)
    venv = shared / "venv"
    with open(shared / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (shared / "ready").exists() and not (shared / "failed").exists():
            made = subprocess.run([system, "-m", "venv", str(venv)], capture_output=True)
            pip = subprocess.run([str(venv / "bin" / "pip"), "install", "-q", str(ROOT)], capture_output=True,
                                 timeout=600) if not made.returncode else made
            marker = "ready" if not (made.returncode or pip.returncode) else "failed"
            (shared / marker).write_bytes((made.stderr + pip.stderr)[-300:])
    if (shared / "failed").exists():
        pytest.skip(f"cannot install attnprep for the system Python: {(shared / 'failed').read_bytes()!r}")
    return shared, str(venv / "bin" / "python")


def as_nobody(place, source: str, *args: str, mode: str, timeout: float = 10.0):
    top, python = place
    work = Path(tempfile.mkdtemp(dir=top))
    work.chmod(0o777)
    path = work / "softmax.py"
    path.write_text("# attnprep: softmax\n" + source, encoding="utf-8")
    home = work / "home"
    env = {"PATH": "/usr/bin:/bin", "HOME": str(work), "ATTNPREP_HOME": str(home), "LANG": "C.UTF-8"}
    proc = subprocess.run([python, "-m", "attnprep", "check", str(path), "--json", "--timeout", str(timeout),
                           "--sandbox", mode, *args], capture_output=True, env=env, cwd=work, user=NOBODY,
                          group=NOBODY, extra_groups=[], timeout=120)
    status = subprocess.run([python, "-m", "attnprep", "status", "--json"], capture_output=True, env=env, cwd=work,
                            user=NOBODY, group=NOBODY, extra_groups=[], timeout=60)
    return proc, json.loads(status.stdout or "{}")


def test_sandbox_starts_for_an_ordinary_user(place):
    proc, _ = as_nobody(place, (SOLUTIONS / "softmax.py").read_text().split("\n", 1)[1], mode="required")
    if proc.returncode == 2:
        pytest.skip(f"bwrap cannot start for an unprivileged user here: {proc.stderr[-300:]!r}")
    assert proc.returncode == 0 and only_json(proc.stdout)["status"] == "pass", proc.stderr
    assert b"sandbox" not in proc.stderr


@pytest.mark.parametrize("mode", ["required", "off"])
def test_progress_and_output_out_of_reach(place, mode):
    """As an ordinary user even the fallback keeps attnprep's environment and output from the file."""
    slugs = ["softmax", "causal", "mha"]
    proc, status = as_nobody(place, FORGE_PROGRESS.format(slugs=slugs) + FORGE_STDOUT.format() + WRONG,
                             mode=mode)
    if proc.returncode == 2:
        pytest.skip("no sandbox for an unprivileged user here")
    assert only_json(proc.stdout)["status"] == "fail"
    assert b'"forged": true' not in proc.stdout
    assert "solved" not in {e["state"] for e in status["exercises"]}


@pytest.mark.parametrize("mode", ["required", "off"])
def test_limits_hold_for_an_ordinary_user(place, mode):
    proc, _ = as_nobody(place, RAISE_LIMITS, mode=mode)
    if proc.returncode == 2:
        pytest.skip("no sandbox for an unprivileged user here")
    report = only_json(proc.stdout)
    assert report["status"] == "fail" and "the memory limit held" in json.dumps(report)


def test_process_count_capped_in_the_sandbox(place):
    correct = (SOLUTIONS / "softmax.py").read_text().split("\n", 1)[1]
    proc, _ = as_nobody(place, MANY_CHILDREN + "\nif FORKED >= 150:\n    raise RuntimeError('not capped')\n"
                        + correct, mode="required")
    if proc.returncode == 2:
        pytest.skip("no sandbox for an unprivileged user here")
    assert only_json(proc.stdout)["status"] == "pass"  # the fork loop hit the limit, so the file went on
