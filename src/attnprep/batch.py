"""`attnprep grade DIR`: grade a whole class's submissions, each in its own worker."""

from __future__ import annotations

import csv
import json
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

from attnprep.catalogue import Exercise
from attnprep.errors import MissingFile
from attnprep.report import Report


def submissions(folder: Path) -> list[Path]:
    """Every .py file directly in `folder`, sorted by name."""
    if not folder.is_dir():
        raise MissingFile(f"{folder} is not a folder")
    files = sorted(p for p in folder.iterdir() if p.suffix == ".py" and p.is_file())
    if not files:
        raise MissingFile(f"{folder} holds no .py files")
    return files


def default_jobs() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)


def grade_all(exercise: Exercise, files: list[Path], *, jobs: int, timeout: float, seed: int,
              on_done: Callable[[Report], None] = lambda r: None) -> list[Report]:
    """Grade every file; results in the order of `files`. One bad file never stops the others."""
    from attnprep.engine import grade

    def one(path: Path) -> Report:
        source = path.read_bytes().decode("utf-8", errors="replace")
        return grade(exercise, source, str(path), seed=seed, timeout=timeout)

    results: dict[Path, Report] = {}
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = {pool.submit(one, p): p for p in files}
        for future in as_completed(futures):
            path = futures[future]
            try:
                report = future.result()
            except Exception as exc:  # an attnprep bug on one file must not lose the batch
                report = Report(exercise=exercise.slug, file=str(path), status="error",
                                message=f"attnprep could not grade this file: {type(exc).__name__}: {exc}")
            results[path] = report
            on_done(report)
    return [results[p] for p in files]


def write_json(path: Path, exercise: Exercise, reports: list[Report]) -> None:
    payload = {"version": 1, "exercise": exercise.slug, "results": [r.to_dict() for r in reports]}
    path.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")


def write_csv(path: Path, reports: list[Report]) -> None:
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["file", "status", "passed", "total", "failed_invariants", "message", "elapsed_s"])
        for r in reports:
            passed = sum(i.passed for i in r.invariants)
            writer.writerow([r.file, r.status, passed, len(r.invariants), " ".join(r.failed_ids),
                             r.message or "", f"{r.elapsed_s:.3f}"])
