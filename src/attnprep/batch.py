"""`attnprep grade`: a class's submissions, each in a fresh worker; shards of a class, and their merge.

Each file gets a worker of its own, never reused, taken from a small pool of
workers started ahead (booted, NumPy imported, waiting for a file), so the
boot of the next file's worker overlaps the grading of this one.

A class larger than one machine is split with `--shard K/N`: a file belongs to
shard 1 + (SHA-256 of its name mod N), which depends on nothing but the name,
so every machine agrees whatever order it lists the folder in, and the shards
are disjoint and together cover the folder. `--merge` joins the shards' JSON
into the report one machine would have written.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import threading
from collections import Counter, deque
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from attnprep.catalogue import Exercise
from attnprep.errors import AttnprepError
from attnprep.formats import failed, not_judged
from attnprep.report import Report

BATCH_VERSION = 1


class NoSubmissions(AttnprepError):
    """The folder to grade is missing or holds nothing to grade: advice for the teacher."""


def submissions(folder: Path, slug: str = "SLUG") -> list[Path]:
    """Every .py file directly in `folder`, sorted by name."""
    usage = f"put one .py file per student in a folder, then `attnprep grade FOLDER -e {slug}`"
    if not folder.exists():
        raise NoSubmissions(f"{folder} does not exist", f"pass the folder of your students' submissions: {usage}")
    if not folder.is_dir():
        raise NoSubmissions(f"{folder} is a file, not a folder of submissions",
                            f"to grade one file, `attnprep check {folder} -e {slug}`; for a class, {usage}")
    files = sorted(p for p in folder.iterdir() if p.suffix == ".py" and p.is_file())
    if files:
        return files
    nested = sorted(p for p in folder.glob("*/*.py") if p.is_file())
    if nested:
        hint = (f"its subfolders hold {len(nested)} .py files (one repository per student?): gather one file "
                f"per student, named after the student, e.g. `mkdir class; for d in {folder}/*/; do cp "
                f"\"${{d}}{slug}.py\" \"class/$(basename \"$d\").py\"; done`, then `attnprep grade class -e {slug}`")
    else:
        hint = usage
    raise NoSubmissions(f"{folder} holds no .py files to grade", hint)


def default_jobs() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)


# -- shards ---------------------------------------------------------------------------------------------

def parse_shard(text: str) -> tuple[int, int]:
    """`K/N` as (K, N), 1 <= K <= N; a usage error otherwise."""
    try:
        k_text, n_text = text.split("/")
        k, n = int(k_text), int(n_text)
    except ValueError:
        k = n = 0
    if not 1 <= k <= n:
        raise AttnprepError(f"--shard {text} is not K/N with 1 <= K <= N",
                            "e.g. --shard 1/4 grades the first quarter of the folder; run 2/4, 3/4 and 4/4 elsewhere")
    return k, n


def shard_of(name: str, count: int) -> int:
    """The shard (1..count) a file of this name belongs to."""
    digest = hashlib.sha256(name.encode("utf-8")).digest()
    return 1 + int.from_bytes(digest[:8], "big") % count


# -- the warm pool ------------------------------------------------------------------------------------

class WarmPool:
    """Workers started ahead of need. `take()` hands out a worker that has been booting (or waits for
    nothing), and starts its replacement at once; a worker is handed out once, never returned. With `limit`,
    no more than that many workers are ever started (no spare boots for nothing after the last file)."""

    def __init__(self, size: int, start: Callable[[], Any], limit: int | None = None) -> None:
        self._start, self._lock = start, threading.Lock()
        self._ready: deque = deque()
        self._left = limit if limit is not None else float("inf")  # workers this pool may still start
        self._closed = False
        for _ in range(max(0, size)):
            self._spawn()

    def _spawn(self) -> None:
        if self._left > 0 and not self._closed:
            self._left -= 1
            self._ready.append(self._start())

    def take(self) -> Any:
        with self._lock:
            worker = self._ready.popleft() if self._ready else None
            self._spawn()
        return worker if worker is not None else self._start()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            left, self._ready = list(self._ready), deque()
        for worker in left:
            worker.kill()


def _default_start(timeout: float) -> Callable[[], Any]:
    from attnprep.runner import Worker, cpu_limit

    return lambda: Worker(cpu_seconds=cpu_limit(timeout))


class FileGrader:
    """Grades one file at a time, each in a fresh worker: forked by a zygote per job and framework inside
    bubblewrap (forkserver.py), else taken from a warm pool, else booted cold. Shared by the threads of one
    process (grade_all) or owned by one judge process (judges.py). `limit`: at most this many files."""

    def __init__(self, exercise: Exercise, *, jobs: int, timeout: float, seed: int, warm: bool = True,
                 start_worker: Callable[[], Any] | None = None, fork: bool | None = None,
                 limit: int | None = None) -> None:
        from attnprep import forkserver
        from attnprep.runner import cpu_limit

        self.exercise, self.timeout, self.seed, self.warm = exercise, timeout, seed, warm
        start = start_worker or _default_start(timeout)
        if fork is None:
            fork = warm and start_worker is None and forkserver.ForkServer.usable()
        self.server = forkserver.ForkServer(jobs, cpu_limit(timeout)) if fork else None
        self.pool = WarmPool(jobs if warm and self.server is None else 0, start, limit=limit)

    def grade(self, path: Path) -> Report:
        """This file's report; a bug of attnprep's (or of a pack's grader) becomes an error report."""
        try:
            return self._grade(path)
        except Exception as exc:  # must not lose the batch
            ex = self.exercise
            whose = f"the grader of pack {ex.pack}" if ex.pack else "attnprep"
            return Report(exercise=ex.slug, file=str(path), status="error",
                          message=f"{whose} could not grade this file: {type(exc).__name__}: {exc}")

    def _grade(self, path: Path) -> Report:
        from attnprep import frameworks
        from attnprep.engine import grade

        server = self.server
        source = path.read_bytes().decode("utf-8", errors="replace")
        framework = frameworks.detect(source)
        forked = server.take(framework) if server is not None else None
        # The warm pool boots NumPy workers: a PyTorch file's would be killed unused (engine.grade).
        worker = forked or (self.pool.take() if self.warm and framework == frameworks.NUMPY else None)
        try:
            return grade(self.exercise, source, str(path), seed=self.seed, timeout=self.timeout, worker=worker,
                         respawn=(lambda: server.take(framework)) if server is not None else None)
        finally:
            if worker is not None:
                worker.kill()  # grade kills it; this covers a failure before grading began

    def close(self) -> None:
        self.pool.close()
        if self.server is not None:
            self.server.close()


def grade_all(exercise: Exercise, files: list[Path], *, jobs: int, timeout: float, seed: int,
              on_done: Callable[[Report], None] = lambda r: None, warm: bool = True,
              start_worker: Callable[[], Any] | None = None, fork: bool | None = None,
              processes: bool | None = None) -> list[Report]:
    """Grade every file, each in a fresh worker; results in the order of `files`. One bad file never stops
    the others. `start_worker` starts one worker (default: a runner.Worker for `timeout`); with `warm`, `jobs`
    of them are kept booting ahead. `fork` (default: with `warm`, inside bubblewrap, unless `start_worker` is
    given): files get workers forked by a zygote per job and framework instead (forkserver.py), a cold one if
    that fails. `processes` (default: with more than one job and file, unless `start_worker` is given): the
    files are judged by `jobs` judge processes (judges.py) rather than by threads of this one."""
    if not files:
        return []
    jobs = max(1, min(jobs, len(files)))
    if processes is None:
        processes = jobs > 1 and start_worker is None
    if processes:
        from attnprep import judges

        return judges.grade_all(exercise, files, jobs=jobs, timeout=timeout, seed=seed, on_done=on_done,
                                warm=warm, fork=fork)
    grader = FileGrader(exercise, jobs=jobs, timeout=timeout, seed=seed, warm=warm, start_worker=start_worker,
                        fork=fork, limit=len(files))
    results: dict[Path, Report] = {}
    try:
        with ThreadPoolExecutor(max_workers=jobs) as threads:
            futures = {threads.submit(grader.grade, p): p for p in files}
            for future in as_completed(futures):
                report = future.result()
                results[futures[future]] = report
                on_done(report)
    finally:
        grader.close()
    return [results[p] for p in files]


# -- a batch: one grading run's results, as JSON --------------------------------------------------------

@dataclass
class Batch:
    exercise: str
    seed: int
    timeout_s: float
    reports: list[Report] = field(default_factory=list)
    shard: dict[str, int] | None = None  # {"index": K, "count": N, "files_in_folder": M}

    def to_dict(self) -> dict[str, Any]:
        return {"version": BATCH_VERSION, "exercise": self.exercise, "seed": self.seed, "timeout_s": self.timeout_s,
                "shard": self.shard, "results": [r.to_dict() for r in self.reports]}

    @property
    def passed(self) -> bool:
        return all(r.passed for r in self.reports)


def write_json(path: Path, batch: Batch) -> None:
    _write(path, json.dumps(batch.to_dict(), indent=2) + "\n")


def _write(path: Path, text: str) -> None:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise AttnprepError(f"cannot write {path}: {exc.strerror or exc}", "choose a path you can write to") from None


class BadShardFile(AttnprepError):
    hint = "pass the files that `attnprep grade FOLDER --shard K/N --json FILE` wrote, one per shard"


def load(path: Path) -> Batch:
    """A batch from the JSON `grade --json` wrote."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BadShardFile(f"{path} does not exist") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise BadShardFile(f"cannot read {path} as JSON: {exc}") from None
    try:
        if data["version"] != BATCH_VERSION:
            raise BadShardFile(f"{path} is version {data['version']} of the grade report; this attnprep reads "
                               f"version {BATCH_VERSION}")
        shard = data.get("shard")
        if shard is not None:
            shard = {k: int(shard[k]) for k in ("index", "count", "files_in_folder")}
        return Batch(str(data["exercise"]), int(data["seed"]), float(data["timeout_s"]),
                     [Report.from_dict(r) for r in data["results"]], shard)
    except (KeyError, TypeError, ValueError):
        raise BadShardFile(f"{path} is not the JSON of `attnprep grade --json`") from None


def merge(batches: Sequence[tuple[Path, Batch]]) -> Batch:
    """The shards' results as one batch, ordered as one machine grading the whole folder orders them."""
    first_path, first = batches[0]
    for path, b in batches[1:]:
        for what in ("exercise", "seed", "timeout_s"):
            if getattr(b, what) != getattr(first, what):
                raise AttnprepError(f"{path} was graded with {what} {getattr(b, what)}, {first_path} with "
                                    f"{getattr(first, what)}", "merge the shards of one grading run only")
    shards = [(p, b.shard) for p, b in batches if b.shard is not None]
    if shards:
        if len(shards) != len(batches):
            raise AttnprepError("some of these files are shards (--shard) and some are not",
                                "merge the shards of one grading run only")
        count = shards[0][1]["count"]
        seen: dict[int, Path] = {}
        for path, s in shards:
            if s["count"] != count or s["files_in_folder"] != shards[0][1]["files_in_folder"]:
                raise AttnprepError(f"{path} is shard {s['index']}/{s['count']} of a folder of "
                                    f"{s['files_in_folder']} files, {shards[0][0]} shard "
                                    f"{shards[0][1]['index']}/{count} of {shards[0][1]['files_in_folder']}",
                                    "merge the shards of one grading run of one folder only")
            if s["index"] in seen:
                raise AttnprepError(f"{path} and {seen[s['index']]} are both shard {s['index']}/{count}",
                                    "pass each shard's file once")
            seen[s["index"]] = path
        missing = sorted(set(range(1, count + 1)) - set(seen))
        if missing:
            raise AttnprepError(f"shard {', '.join(f'{k}/{count}' for k in missing)} is missing",
                                f"pass the JSON of all {count} shards")
    reports: dict[str, tuple[Path, Report]] = {}
    for path, b in batches:
        for r in b.reports:
            if r.file in reports:
                raise AttnprepError(f"{r.file} is graded in both {reports[r.file][0]} and {path}",
                                    "merge the shards of one grading run only")
            reports[r.file] = (path, r)
    ordered = sorted((r for _, r in reports.values()), key=lambda r: (Path(r.file).name, r.file))
    if shards and len(ordered) != shards[0][1]["files_in_folder"]:
        raise AttnprepError(f"the shards hold {len(ordered)} files, but the folder held "
                            f"{shards[0][1]['files_in_folder']} when they were graded",
                            "grade every shard of the same folder, unchanged in between")
    return Batch(first.exercise, first.seed, first.timeout_s, ordered, None)


# -- the teacher's views: table, CSV, JUnit ---------------------------------------------------------------

def _passed_cell(r: Report) -> str:
    return f"{sum(i.passed for i in r.invariants)}/{len(r.invariants)}" if r.invariants else "-"


def _problems(r: Report) -> str:
    """What to read about a file: its failed invariants, or the error that stopped its grading."""
    ids = ", ".join(i.id for i in failed(r))
    if not r.invariants:
        return r.message or "no invariant ran"
    return ids or ("-" if r.passed else (r.message or "-"))


def print_table(batch: Batch) -> None:
    """The summary table on stdout, and a line of counts under it."""
    from attnprep import plain

    styles = {"pass": "green", "fail": "red", "error": "red", "timeout": "yellow"}
    rows = [[Path(r.file).name, (r.status, styles.get(r.status, "")), _passed_cell(r), _problems(r),
             ", ".join(i.id for i in not_judged(r)) or "-", ", ".join(m["id"] for m in r.mistakes) or "-",
             f"{r.elapsed_s:.2f}s"] for r in batch.reports]
    plain.print_table(f"attnprep grade: {batch.exercise}",
                      [("file", "left"), ("status", "left"), ("passed", "right"), ("failed invariants", "left"),
                       ("not judged", "left"), ("likely mistakes", "left"), ("time", "right")], rows)
    counts = Counter(r.status for r in batch.reports)
    line = ", ".join(f"{counts[s]} {s}" for s in ("pass", "fail", "error", "timeout") if counts[s])
    print(f"{line or 'no files'} of {len(batch.reports)} files")
    top = Counter(i.id for r in batch.reports for i in failed(r)).most_common(5)
    if top:
        print("failed most: " + ", ".join(f"{inv} ({n})" for inv, n in top))
    mistakes = Counter(m["id"] for r in batch.reports for m in r.mistakes).most_common(5)
    if mistakes:
        print("likely mistakes most: " + ", ".join(f"{m} ({n})" for m, n in mistakes))


CSV_COLUMNS = ("file", "status", "passed", "total", "failed_invariants", "message", "elapsed_s", "not_judged",
               "mistakes")


def write_csv(path: Path, reports: list[Report]) -> None:
    """One row per file; failed_invariants holds only what the solution broke (not what was not judged)."""
    try:
        handle = open(path, "w", newline="", encoding="utf-8")
    except OSError as exc:
        raise AttnprepError(f"cannot write {path}: {exc.strerror or exc}", "choose a path you can write to") from None
    with handle:
        writer = csv.writer(handle)
        writer.writerow(CSV_COLUMNS)
        for r in reports:
            writer.writerow([r.file, r.status, sum(i.passed for i in r.invariants), len(r.invariants),
                             " ".join(i.id for i in failed(r)), r.message or "", f"{r.elapsed_s:.3f}",
                             " ".join(i.id for i in not_judged(r)), " ".join(m["id"] for m in r.mistakes)])


def write_junit(path: Path, batch: Batch) -> None:
    from attnprep.formats import junit

    _write(path, junit(batch.reports, name=f"attnprep grade {batch.exercise}"))
