"""Speed targets of attnprep, measured side by side in one run (medians of repeated runs).

    python benchmarks/bench.py [--repeat N] [--batch N]

1. `attnprep check` of a correct solution against the same invariants run as a
   plain pytest file (benchmarks/pytest_equivalent), and against the lean pytest
   file a learner writes by hand for it (benchmarks/lean_pytest): target ratio
   <= 1.0 for both.
2. `attnprep --help` and `attnprep list` against `python -c "import typer"`:
   target ratio <= 1.3, and neither imports numpy nor jinja2.
3. `attnprep grade` of N mha submissions with --jobs = cores: target <= 8 s for 100 on two cores
   (benchmarks/bench_grade.py sets its warm workers against cold ones).
4. The sandbox's cost: `attnprep check softmax` inside bubblewrap against `--sandbox off`, and a worker's
   start until it is ready, both ways, as the median difference of runs made back to back: target <= 10 ms
   added (skipped where bwrap cannot start).
5. PyTorch (where torch is installed): `attnprep check` of the PyTorch reference against the NumPy one, and a
   PyTorch worker's start until ready (torch imported) against a NumPy worker's; reported, no target.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable


def wall(cmd: list[str], env: dict | None = None, cwd: Path | None = None) -> float:
    started = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=cwd)
    return time.perf_counter() - started


def median_pair(a: list[str], b: list[str], repeat: int, env: dict) -> tuple[float, float]:
    """Interleave the two commands so both see the same machine load (after one warm-up run of each)."""
    wall(a, env)
    wall(b, env)
    ta, tb = [], []
    for _ in range(repeat):
        ta.append(wall(a, env))
        tb.append(wall(b, env))
    return statistics.median(ta), statistics.median(tb)


def imports_of(args: list[str], env: dict) -> set[str]:
    proc = subprocess.run([PY, "-X", "importtime", "-m", "attnprep", *args], capture_output=True, env=env,
                          text=True)
    return {line.split("|")[-1].strip().split(".")[0] for line in proc.stderr.splitlines() if "|" in line}


_READY = """
import json, sys, time
from attnprep import runner, sandbox
took = {"required": [], "off": []}
for i in range(int(sys.argv[1])):
    for mode in (("required", "off") if i % 2 else ("off", "required")):
        sandbox.set_mode(mode)
        started = time.perf_counter()
        worker = runner.Worker()
        worker.wait_ready(time.monotonic() + 30)
        took[mode].append(time.perf_counter() - started)
        assert worker.sandboxed == (mode == "required")
        worker.kill()
        time.sleep(0.2)  # let the last namespaces go, as between two checks
print(json.dumps(took))
"""


def paired(a: list[float], b: list[float]) -> float:
    """Median of the differences of runs made back to back: steadier than a difference of medians."""
    return statistics.median(x - y for x, y in zip(a, b, strict=True))


def sandbox_rows(env: dict, repeat: int) -> list[tuple]:
    """What bubblewrap adds: to a whole check, and to a worker's start until it is ready (pairs of runs)."""
    import json

    solution = str(ROOT / "solutions" / "softmax.py")
    check = [PY, "-m", "attnprep", "check", solution, "--exercise", "softmax", "--sandbox"]
    if subprocess.run([*check, "required"], capture_output=True, env=env).returncode == 2:
        return [("sandbox rows skipped: bwrap cannot start here", 0.0, "", 0.0, 0.0)]
    took: dict[str, list[float]] = {"required": [], "off": []}
    for i in range(repeat):
        for mode in ("required", "off") if i % 2 else ("off", "required"):
            time.sleep(0.2)
            took[mode].append(wall([*check, mode], env))
    extra = paired(took["required"], took["off"])
    rows = [("attnprep check softmax, sandboxed", statistics.median(took["required"]),
             f"--sandbox off ({statistics.median(took['off']):.3f}s): {1000 * extra:+.1f} ms", extra / 0.010, 1.0)]
    out = subprocess.run([PY, "-c", _READY, str(repeat)], capture_output=True, text=True, env=env)
    ready = json.loads(out.stdout)
    extra = paired(ready["required"], ready["off"])
    rows.append(("worker start until ready, sandboxed", statistics.median(ready["required"]),
                 f"--sandbox off ({statistics.median(ready['off']):.3f}s): {1000 * extra:+.1f} ms", extra / 0.010,
                 1.0))
    return rows


_READY_TORCH = """
import json, sys, time
from attnprep import runner
took = {"torch": [], "numpy": []}
for i in range(int(sys.argv[1])):
    for framework in (("torch", "numpy") if i % 2 else ("numpy", "torch")):
        started = time.perf_counter()
        worker = runner.Worker(framework=framework)
        worker.wait_ready(time.monotonic() + 60)
        took[framework].append(time.perf_counter() - started)
        worker.kill()
print(json.dumps(took))
"""


def torch_rows(env: dict, repeat: int) -> list[tuple]:
    """A PyTorch file's check beside its NumPy twin's, and what the worker's torch import costs."""
    import importlib.util
    import json

    if importlib.util.find_spec("torch") is None:
        return [("PyTorch rows skipped: torch is not installed", 0.0, "", 0.0, None)]
    rows = []
    for slug in ("softmax", "mha"):
        numpy_check = [PY, "-m", "attnprep", "check", str(ROOT / "solutions" / f"{slug}.py"), "--exercise", slug]
        torch_check = [PY, "-m", "attnprep", "check", str(ROOT / "solutions" / "torch" / f"{slug}.py"),
                       "--exercise", slug]
        a, b = median_pair(torch_check, numpy_check, repeat, env)
        rows.append((f"attnprep check {slug}, PyTorch file", a, f"the NumPy file ({b:.3f}s)", a / b, None))
    out = subprocess.run([PY, "-c", _READY_TORCH, str(repeat)], capture_output=True, text=True, env=env)
    ready = json.loads(out.stdout)
    a, b = statistics.median(ready["torch"]), statistics.median(ready["numpy"])
    rows.append(("PyTorch worker start until ready", a, f"a NumPy worker ({b:.3f}s)", a / b, None))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--batch", type=int, default=100)
    opts = parser.parse_args()
    home = tempfile.mkdtemp(prefix="attnprep-bench-")
    # As installed: pip writes bytecode for every module at install time, so both sides of each pair run from
    # it. A shell that sets PYTHONDONTWRITEBYTECODE (as some containers do) would otherwise have attnprep compile
    # its two dozen modules on every run, a cost no installed copy pays; each command runs once to warm up.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["ATTNPREP_HOME"] = home
    rows = []
    for slug in ("softmax", "mha"):
        solution = ROOT / "solutions" / f"{slug}.py"
        if not solution.exists():
            continue
        check = [PY, "-m", "attnprep", "check", str(solution), "--exercise", slug]
        penv = {**env, "ATTNPREP_BENCH_FILE": str(solution), "ATTNPREP_BENCH_EXERCISE": slug}
        for folder, what in (("pytest_equivalent", "pytest, same invariants"), ("lean_pytest", "pytest, lean file")):
            # -o addopts= drops the project's own `-n auto`: the anchor is one plain pytest process.
            anchor = [PY, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=", "-p", "no:xdist",
                      str(ROOT / "benchmarks" / folder)]
            ran = subprocess.run(anchor, capture_output=True, text=True, env=penv, cwd=ROOT)
            if ran.returncode != 0:  # an anchor that errors out early would make any check look fast
                sys.exit(f"the anchor {folder} did not pass on {solution.name}:\n{ran.stdout[-2000:]}")
            a, b = median_pair(check, anchor, opts.repeat, penv)
            rows.append((f"attnprep check {slug}", a, f"{what} ({b:.3f}s)", a / b, 1.0))
    rows += sandbox_rows(env, max(opts.repeat, 25))
    rows += torch_rows(env, opts.repeat)
    typer_only = [PY, "-c", "import typer"]
    for args in (["--help"], ["list"]):
        # Start-up takes a tenth of a second and this machine's noise is a few ms: take more samples.
        a, b = median_pair([PY, "-m", "attnprep", *args], typer_only, max(opts.repeat, 25), env)
        rows.append((f"attnprep {' '.join(args)}", a, f"python -c 'import typer' ({b:.3f}s)", a / b, 1.3))
        heavy = imports_of(args, env) & {"numpy", "jinja2"}
        if heavy:
            rows.append((f"  imports {sorted(heavy)}", 0.0, "must import neither", float("inf"), 0.0))
    if (ROOT / "tests" / "corpus" / "mha").is_dir() and opts.batch:
        folder = Path(tempfile.mkdtemp(prefix="attnprep-class-"))
        sources = sorted((ROOT / "tests" / "corpus" / "mha").glob("*.py"))
        for i in range(opts.batch):
            shutil.copy(sources[i % len(sources)], folder / f"student{i:03d}.py")
        jobs = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
        took = wall([PY, "-m", "attnprep", "grade", str(folder), "-e", "mha", "--jobs", str(jobs)], env)
        budget = 8.0 * opts.batch / 100
        rows.append((f"attnprep grade {opts.batch} mha files, --jobs {jobs}", took, f"{budget:g} s target",
                     took / budget, 1.0))
        one = wall([PY, "-m", "attnprep", "grade", str(folder), "-e", "mha", "--jobs", "1"], env)
        rows.append((f"attnprep grade {opts.batch} mha files, --jobs 1", one, f"--jobs {jobs} ({took:.1f}s)",
                     one / took, 0.0))
        shutil.rmtree(folder, ignore_errors=True)
    shutil.rmtree(home, ignore_errors=True)
    print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}, {sys.platform}")
    print(f"{'command':44} {'median wall':>12}  {'anchor':44} {'ratio':>6}  target")
    for name, seconds, anchor, ratio, target in rows:
        goal = "(reported)" if target is None else f"<= {target}" if target else "(speed-up)"
        ok = "" if not target else ("ok" if ratio <= target else "MISSED")
        print(f"{name:44} {seconds:11.3f}s  {anchor:44} {ratio:6.2f}  {goal} {ok}")


if __name__ == "__main__":
    main()
