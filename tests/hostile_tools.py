"""Helpers of the hostile tests: run the installed CLI in each sandbox mode, in a pid namespace, or from a
throwaway installation that a hostile candidate may damage.

A test that lets a candidate modify installed files runs `throwaway_install()`: a private copy of this
environment's packages with attnprep installed the way a wheel lays it out (attnprep/_data/...), never the
development venv or the checkout.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SOLUTIONS = ROOT / "solutions"
MODES = [pytest.param("required", id="sandbox"), pytest.param("off", id="fallback")]


@functools.cache
def sandbox_works() -> bool:
    """Can bwrap start the worker here? (CI installs bubblewrap, so there it must.)"""
    import tempfile

    with tempfile.TemporaryDirectory() as home:
        proc = subprocess.run([sys.executable, "-m", "attnprep", "check", str(SOLUTIONS / "softmax.py"), "--exercise",
                               "softmax", "--json", "--sandbox", "required", "--timeout", "30"],
                              capture_output=True, env={**os.environ, "ATTNPREP_HOME": home})
    return proc.returncode != 2


def need(mode: str) -> None:
    if mode == "required" and not sandbox_works():
        pytest.skip("bubblewrap cannot start a sandbox on this machine")


def is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def has_capability(bit: int) -> bool:
    """Does this process hold a capability (24: CAP_SYS_RESOURCE, 19: CAP_SYS_PTRACE)? Root may lack some."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("CapEff:"):
                return bool(int(line.split()[1], 16) >> bit & 1)
    except OSError:
        pass
    return False


def run_cli(*args: str, home: Path, mode: str | None, python: str = sys.executable, timeout: float = 90,
            cwd: Path | None = None, env: dict | None = None, **popen) -> tuple[subprocess.CompletedProcess, float]:
    """`python -m attnprep ARGS [--sandbox MODE]` with ATTNPREP_HOME=home; (result, seconds)."""
    full_env = {**os.environ, "ATTNPREP_HOME": str(home), **(env or {})}
    started = time.monotonic()
    sandbox = ["--sandbox", mode] if mode else []
    proc = subprocess.run([python, "-m", "attnprep", *args, *sandbox], capture_output=True, env=full_env,
                          timeout=timeout, cwd=cwd, stdin=subprocess.DEVNULL, **popen)
    return proc, time.monotonic() - started


# A check run in a pid namespace of its own, then every process left in it listed: survivors of the check.
_IN_PIDNS = r"""
import json, os, subprocess, sys, time
started = time.monotonic()
try:
    proc = subprocess.run(sys.argv[3:], capture_output=True, stdin=subprocess.DEVNULL, timeout=float(sys.argv[2]))
    timed_out = False
except subprocess.TimeoutExpired as exc:  # killed by run(); a stopped process dies of SIGKILL too
    proc = subprocess.CompletedProcess(exc.cmd, None, exc.stdout or b"", exc.stderr or b"")
    timed_out = True
elapsed = time.monotonic() - started
time.sleep(0.3)
left = []
for entry in os.listdir("/proc"):
    if entry.isdigit() and int(entry) not in (1, os.getpid()):
        try:
            stat = open(f"/proc/{entry}/stat").read()
        except OSError:
            continue
        if stat[stat.rfind(")") + 2] != "Z":
            left.append(stat[:80])
with open(sys.argv[1], "w") as out:
    json.dump({"rc": proc.returncode, "timed_out": timed_out, "stdout": proc.stdout.decode("utf-8", "replace"),
               "stderr": proc.stderr.decode("utf-8", "replace"), "elapsed": elapsed, "left": left}, out)
"""


def pidns_available() -> bool:
    return sys.platform.startswith("linux") and shutil.which("unshare") is not None


def run_in_pidns(*args: str, home: Path, mode: str, tmp: Path, python: str = sys.executable,
                 timeout: float = 90, limit: float = 60) -> dict:
    """Run the CLI as the only thing in a new pid namespace, killed after `limit` s; the result, with `left`:
    processes still running after it, and `timed_out`."""
    out = tmp / "pidns.json"
    user = [] if is_root() else ["--user", "--map-root-user"]
    cmd = ["unshare", *user, "--pid", "--fork", "--mount-proc", sys.executable, "-c", _IN_PIDNS, str(out), str(limit),
           python, "-m", "attnprep", *args, "--sandbox", mode]
    proc = subprocess.run(cmd, capture_output=True, env={**os.environ, "ATTNPREP_HOME": str(home)}, timeout=timeout)
    if not out.exists():
        pytest.skip(f"cannot make a pid namespace here: {proc.stderr.decode(errors='replace')[:200]}")
    return json.loads(out.read_text())


def throwaway_install(dest: Path) -> Path:
    """A private venv holding copies of this environment's packages and attnprep laid out as its wheel does.

    Returns its python. Hostile candidates may rewrite anything in it.
    """
    venv = dest / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = Path(subprocess.run([str(venv / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_path("
                                "'purelib'))"], capture_output=True, text=True, check=True).stdout.strip())
    import numpy

    ours = Path(numpy.__file__).resolve().parent.parent
    skip = ("attnprep", "_editable_impl_attnprep.pth", "__editable__", "_pytest", "pytest", "ruff", "pip",
            "setuptools", "_distutils_hack", "distutils-precedence.pth", "pkg_resources", "__pycache__")
    for item in ours.iterdir():
        if item.name.startswith(skip):
            continue
        target = site / item.name
        if item.is_dir():
            shutil.copytree(item, target, symlinks=True)
        else:
            shutil.copy2(item, target)
    shutil.copytree(ROOT / "src" / "attnprep", site / "attnprep", ignore=shutil.ignore_patterns("__pycache__"))
    for part in ("exercises", "grader", "solutions"):
        shutil.copytree(ROOT / part, site / "attnprep" / "_data" / part, ignore=shutil.ignore_patterns("__pycache__"))
    return str(venv / "bin" / "python")


def only_json(stdout: bytes | str) -> dict:
    """stdout must be exactly one JSON object (and whitespace): attnprep's report."""
    text = stdout.decode("utf-8", "replace") if isinstance(stdout, bytes) else stdout
    decoder = json.JSONDecoder()
    obj, end = decoder.raw_decode(text.lstrip())
    assert not text.lstrip()[end:].strip(), f"more than one JSON object on stdout: {text[:300]!r}"
    return obj
