"""Speed targets of attnprep, measured side by side in one run (medians of repeated runs).

    python benchmarks/bench.py [--repeat N] [--batch N]

1. `attnprep check` of a correct solution against the same invariants run as a
   plain pytest file (benchmarks/pytest_equivalent), and against the lean pytest
   file a learner writes by hand for it (benchmarks/lean_pytest): target ratio
   <= 1.0 for both.
2. `attnprep --help` and `attnprep list` against `python -c "import typer"`:
   target ratio <= 1.3, and neither imports numpy nor jinja2.
3. `attnprep grade` of N mha submissions with --jobs = cores: target < 60 s for 100.
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
    """Interleave the two commands so both see the same machine load."""
    ta, tb = [], []
    for _ in range(repeat):
        ta.append(wall(a, env))
        tb.append(wall(b, env))
    return statistics.median(ta), statistics.median(tb)


def imports_of(args: list[str], env: dict) -> set[str]:
    proc = subprocess.run([PY, "-X", "importtime", "-m", "attnprep", *args], capture_output=True, env=env,
                          text=True)
    return {line.split("|")[-1].strip().split(".")[0] for line in proc.stderr.splitlines() if "|" in line}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--batch", type=int, default=100)
    opts = parser.parse_args()
    home = tempfile.mkdtemp(prefix="attnprep-bench-")
    env = {**os.environ, "ATTNPREP_HOME": home}
    rows = []
    for slug in ("softmax", "mha"):
        solution = ROOT / "solutions" / f"{slug}.py"
        if not solution.exists():
            continue
        check = [PY, "-m", "attnprep", "check", str(solution), "--exercise", slug]
        penv = {**env, "ATTNPREP_BENCH_FILE": str(solution), "ATTNPREP_BENCH_EXERCISE": slug}
        for folder, what in (("pytest_equivalent", "pytest, same invariants"), ("lean_pytest", "pytest, lean file")):
            anchor = [PY, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
                      str(ROOT / "benchmarks" / folder)]
            a, b = median_pair(check, anchor, opts.repeat, penv)
            rows.append((f"attnprep check {slug}", a, f"{what} ({b:.3f}s)", a / b, 1.0))
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
        rows.append((f"attnprep grade {opts.batch} mha files, --jobs {jobs}", took, "60 s budget", took / 60, 1.0))
        one = wall([PY, "-m", "attnprep", "grade", str(folder), "-e", "mha", "--jobs", "1"], env)
        rows.append((f"attnprep grade {opts.batch} mha files, --jobs 1", one, f"--jobs {jobs} ({took:.1f}s)",
                     one / took, 0.0))
        shutil.rmtree(folder, ignore_errors=True)
    shutil.rmtree(home, ignore_errors=True)
    print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}, {sys.platform}")
    print(f"{'command':44} {'median wall':>12}  {'anchor':44} {'ratio':>6}  target")
    for name, seconds, anchor, ratio, target in rows:
        goal = f"<= {target}" if target else "(speed-up)"
        ok = "" if not target else ("ok" if ratio <= target else "MISSED")
        print(f"{name:44} {seconds:11.3f}s  {anchor:44} {ratio:6.2f}  {goal} {ok}")


if __name__ == "__main__":
    main()
