"""`grade`'s judge processes: with more than one job, each job is a process of attnprep's own that judges files.

Judging is the parent's own NumPy: the inputs, the references, the comparisons and the wire, about a tenth of
a second of CPU for an mha file. In one process those run under one GIL, so however many workers ran the
candidates, a class was judged one file at a time (100 mha files: about 10 s of one core in the judge, 5 s
in all the workers). Here each of the `jobs` judge processes grades one file at a time with its own
batch.FileGrader (its own zygotes or warm pool), and takes the next file when it is done, so a slow PyTorch
file holds up no fixed share of the class.

A judge runs attnprep's code only: the candidate's runs in the workers a judge starts, isolated exactly as
before. The protocol is JSON lines: the parent writes the settings, then one file at a time; the judge
answers each with that file's report (Report.to_dict). A judge that dies takes with it only the file it was
grading, which gets an error report; the next file gets a fresh judge.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from attnprep import ONE_BLAS_THREAD, frameworks
from attnprep.catalogue import Exercise
from attnprep.report import Report

_STDERR_KEEP = 2000  # characters of a judge's stderr kept for the report of a file it died on


class Judge:
    """One judge process (`python -m attnprep.judges`), started with the grading run's settings."""

    def __init__(self, settings: dict[str, Any]) -> None:
        # One BLAS thread each: the judges already fill the cores, and idle BLAS threads spinning beside
        # another judge's cost more CPU than their help on the judge's small matrices saves.
        env = {**os.environ, **ONE_BLAS_THREAD}
        self.proc = subprocess.Popen([sys.executable, "-m", "attnprep.judges"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1,
                                     encoding="utf-8", errors="replace", env=env)
        self._stderr = ""
        threading.Thread(target=self._drain, daemon=True).start()
        self._send(settings)

    def _drain(self) -> None:
        for line in self.proc.stderr:
            self._stderr = (self._stderr + line)[-_STDERR_KEEP:]

    def _send(self, data: dict[str, Any]) -> None:
        self.proc.stdin.write(json.dumps(data) + "\n")
        self.proc.stdin.flush()

    def grade(self, path: Path) -> dict[str, Any]:
        """The report of one file, as a dict; raises JudgeDied if the judge ends before answering."""
        try:
            self._send({"path": str(path)})
            line = self.proc.stdout.readline()
        except OSError:
            line = ""
        if not line:
            raise JudgeDied(self._death_note())
        return json.loads(line)

    def _death_note(self) -> str:
        try:
            code = self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.close()
            code = self.proc.returncode
        last = self._stderr.strip().splitlines()[-1:] or [""]
        return f"its judge process ended (code {code}){': ' + last[0] if last[0] else ''}"

    def close(self) -> None:
        """End the judge: EOF on its stdin lets it close its workers; it is killed if it does not end."""
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


class JudgeDied(Exception):
    pass


# A judge boots a zygote for each framework it meets: NumPy's in a tenth of a second, PyTorch's in about 1.5 s of
# CPU (torch's import). A file goes to a judge that has booted its framework; another judge boots that framework
# too only when at least this many of its files are still waiting. Every judge booting torch for a few files cost
# a class of 100 mha files (7 of them PyTorch) 1.5 s of CPU, on two cores 0.75 s of the whole run.
FILES_WORTH_A_BOOT = {frameworks.NUMPY: 1, frameworks.TORCH: 8}


class FileQueue:
    """The files no judge has taken yet, by framework, and the frameworks each judge has booted.

    take(booted) gives a judge, earliest file first: a file of a framework it has booted; else one of a framework
    no judge has booted (someone must); else one of a framework another judge has booted, if enough of its files
    wait for a second boot to pay (FILES_WORTH_A_BOOT); else nothing, and the judge ends."""

    def __init__(self, files: list[Path]) -> None:
        from collections import deque

        self._lock = threading.Lock()
        self._waiting: dict[str, deque] = {}
        for index, path in enumerate(files):
            try:
                framework = frameworks.detect(path.read_bytes().decode("utf-8", errors="replace"))
            except OSError:  # the judge reports the unreadable file
                framework = frameworks.NUMPY
            self._waiting.setdefault(framework, deque()).append((index, path))
        self._booted: list[set[str]] = []

    def judge(self) -> set[str]:
        """A judge's set of booted frameworks, filled by take(); cleared by the caller when its process is new."""
        booted: set[str] = set()
        with self._lock:
            self._booted.append(booted)
        return booted

    def take(self, booted: set[str]) -> tuple[int, Path] | None:
        with self._lock:
            waiting = {fw: files for fw, files in self._waiting.items() if files}
            anyone = set().union(*self._booted)
            for choice in ([fw for fw in waiting if fw in booted],
                           [fw for fw in waiting if fw not in anyone],
                           [fw for fw in waiting if len(waiting[fw]) >= FILES_WORTH_A_BOOT.get(fw, 1)]):
                if choice:
                    framework = min(choice, key=lambda fw: waiting[fw][0][0])
                    booted.add(framework)
                    return waiting[framework].popleft()
            return None


def grade_all(exercise: Exercise, files: list[Path], *, jobs: int, timeout: float, seed: int,
              on_done: Callable[[Report], None], warm: bool = True, fork: bool | None = None) -> list[Report]:
    """batch.grade_all over `jobs` judge processes; reports in the order of `files`."""
    from attnprep import catalogue, sandbox

    settings = {"slug": exercise.slug, "packs": [str(p) for p in catalogue.pack_folders()], "seed": seed,
                "timeout": timeout, "sandbox": sandbox.mode(), "broken": sandbox.broken_reason(),
                "warm": warm, "fork": fork}
    todo = FileQueue(files)
    done: queue.SimpleQueue = queue.SimpleQueue()

    def run() -> None:
        judge, booted = None, todo.judge()
        try:
            while True:
                item = todo.take(booted)
                if item is None:
                    return
                index, path = item
                try:
                    judge = judge or Judge(settings)
                    report = Report.from_dict(judge.grade(path))
                except (JudgeDied, OSError, ValueError, KeyError, TypeError) as exc:
                    if judge is not None:
                        judge.close()
                    judge = None
                    booted.clear()  # the next judge is a new process, with no zygote yet
                    why = str(exc) if isinstance(exc, JudgeDied) else f"{type(exc).__name__}: {exc}"
                    report = Report(exercise=exercise.slug, file=str(path), status="error",
                                    message=f"attnprep could not grade this file: {why}")
                done.put((index, report))
        finally:
            if judge is not None:
                judge.close()
            done.put(None)

    threads = [threading.Thread(target=run, daemon=True) for _ in range(jobs)]
    for thread in threads:
        thread.start()
    results: list[Report | None] = [None] * len(files)
    running = len(threads)
    while running:
        item = done.get()
        if item is None:
            running -= 1
            continue
        index, report = item
        results[index] = report
        on_done(report)
    return results  # type: ignore[return-value]


def serve() -> None:
    """The judge's side: settings, then a report for each file named on stdin, until EOF."""
    # Reports go out on a private copy of stdout; anything else printed (a warning, a grader's print) goes
    # to stderr, so it cannot break a line of the protocol.
    out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    from attnprep import batch, catalogue, sandbox

    settings = json.loads(sys.stdin.readline())
    catalogue.add_packs([Path(p) for p in settings["packs"]])
    sandbox.set_mode(settings["sandbox"])
    if settings["broken"]:
        sandbox.mark_broken(settings["broken"])  # as the parent found it: not tried again file by file
    exercise = catalogue.get(settings["slug"])
    grader = batch.FileGrader(exercise, jobs=1, timeout=settings["timeout"], seed=settings["seed"],
                              warm=settings["warm"], fork=settings["fork"])
    try:
        for line in sys.stdin:
            report = grader.grade(Path(json.loads(line)["path"]))
            out.write(json.dumps(report.to_dict()) + "\n")
            out.flush()
    finally:
        grader.close()


if __name__ == "__main__":
    serve()
