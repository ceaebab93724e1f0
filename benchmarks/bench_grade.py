"""`attnprep grade` of a class: forked workers, warm ones (booted ahead) and cold ones (booted per file), side by side.

    python benchmarks/bench_grade.py [--files 100] [--repeat 3] [--jobs N] [--sandbox auto|required|off]

The runs grade the same N mha submissions (copies of the mha corpus, right and wrong) in one process with
batch.grade_all, which `grade` calls; each file gets a fresh worker every way. The three are interleaved so all
see the same machine load, and the load average is printed before and after: on a busy machine the ratio is
what to read. The CPU time printed is this process's and its reaped children's (getrusage): inside the
sandbox part of the workers' time may not be counted, so read CPU times from `--sandbox off` runs. The last
line times the whole `attnprep grade` command (forked, its default in the sandbox) once. Target: 100 files
within 8 s on two cores.
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
sys.path.insert(0, str(ROOT / "src"))

from attnprep import batch, catalogue  # noqa: E402


def cpu_seconds() -> float:
    import resource

    own, workers = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + workers.ru_utime + workers.ru_stime


def load() -> str:
    return " ".join(f"{v:.2f}" for v in os.getloadavg()) if hasattr(os, "getloadavg") else "?"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=batch.default_jobs())
    parser.add_argument("--sandbox", default="required", choices=("auto", "required", "off"))
    opts = parser.parse_args()
    from attnprep import sandbox

    sandbox.set_mode(opts.sandbox)  # as `grade --sandbox` does (it defaults to required)
    folder = Path(tempfile.mkdtemp(prefix="attnprep-class-"))
    sources = sorted((ROOT / "tests" / "corpus" / "mha").glob("*.py"))
    for i in range(opts.files):
        shutil.copy(sources[i % len(sources)], folder / f"student{i:03d}.py")
    files = sorted(folder.glob("*.py"))
    ex = catalogue.get("mha")
    batch.grade_all(ex, files[:2], jobs=1, timeout=10, seed=0)  # the judge's imports and the grader, once
    print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}, load average before: {load()}")
    # forked: a zygote per job forks each file's worker (forkserver.py, inside the sandbox only); warm: workers
    # booted ahead, one per file; cold: each file's worker booted when its turn comes.
    modes = {"forked": dict(fork=True), "warm": dict(fork=False), "cold": dict(warm=False, fork=False)}
    times: dict[str, list[float]] = {m: [] for m in modes}
    cpu: dict[str, list[float]] = {m: [] for m in modes}
    verdicts: dict[str, list] = {}
    for _ in range(opts.repeat):
        for mode, options in modes.items():
            before = cpu_seconds()
            started = time.perf_counter()
            reports = batch.grade_all(ex, files, jobs=opts.jobs, timeout=10, seed=0, **options)
            times[mode].append(time.perf_counter() - started)
            cpu[mode].append(cpu_seconds() - before)
            assert len(reports) == len(files)
            verdicts.setdefault(mode, [(r.status, [(i.id, i.status) for i in r.invariants]) for r in reports])
    for mode in modes:
        median = statistics.median(times[mode])
        print(f"grade_all, {opts.files} mha files, --jobs {opts.jobs}, {mode:6s} workers {median:7.2f}s"
              f"  (runs: {', '.join(f'{t:.2f}' for t in times[mode])})")
    forked, cold = statistics.median(times["forked"]), statistics.median(times["cold"])
    print(f"forked / cold: {forked / cold:.2f}, warm / cold: {statistics.median(times['warm']) / cold:.2f}")
    same = all(verdicts[m] == verdicts["cold"] for m in modes)
    print(f"the same verdicts in every mode: {'yes' if same else 'NO'}")
    # CPU time (this process and its workers) does not grow with other load the way wall time does: spread over
    # the cores, it is about what the wall time comes to on a quiet machine.
    for mode in modes:
        spent = statistics.median(cpu[mode])
        print(f"CPU, {mode}: {spent:.2f} s (parent and workers), {spent / opts.jobs:.2f} s spread over "
              f"{opts.jobs} cores")
    # As installed, from bytecode (see bench.py): a PYTHONDONTWRITEBYTECODE shell would compile every module.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["ATTNPREP_HOME"] = tempfile.mkdtemp(prefix="attnprep-bench-")
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "attnprep", "grade", str(folder), "-e", "mha", "--jobs", str(opts.jobs),
                    "--sandbox", opts.sandbox], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    whole = time.perf_counter() - started
    target = "ok" if whole <= 8.0 or opts.files != 100 else "MISSED"
    print(f"attnprep grade, {opts.files} mha files, --jobs {opts.jobs}           {whole:7.2f}s  "
          f"(target for 100 files: 8 s) {target}")
    print(f"load average after: {load()}")
    shutil.rmtree(folder, ignore_errors=True)
    shutil.rmtree(env["ATTNPREP_HOME"], ignore_errors=True)


if __name__ == "__main__":
    main()
