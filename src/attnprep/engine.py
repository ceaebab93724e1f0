"""Grade one file: run every invariant of an exercise against a sandboxed worker."""

from __future__ import annotations

import importlib.util
import inspect
import time
import zlib
from collections.abc import Callable
from functools import cache
from pathlib import Path
from types import ModuleType

import numpy as np

from attnprep import precision
from attnprep.catalogue import Exercise
from attnprep.grading import CURRENT_TALLY, CallTimeout, Candidate, CandidateCrash, CandidateError, Fail, Tally
from attnprep.report import InvariantResult, Report
from attnprep.runner import Worker, WorkerDied, WorkerTimeout, cpu_limit

# A hanging invariant may use this many times its fair share of the time left,
# so one slow check cannot starve the ones after it.
FAIR_SHARE = 3.0
MIN_SLICE_S = 1.0
# The most a grading's deadlines move out for the framework's imports in its workers (frameworks.LIMITS).
IMPORT_CREDIT_S = 60.0


def _load_module(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@cache
def grader_module(exercise: Exercise) -> ModuleType:
    return _load_module(exercise.grader_path, f"attnprep_grader_{exercise.slug}")


@cache
def reference_module(exercise: Exercise) -> ModuleType:
    return _load_module(exercise.solution_path, f"attnprep_solution_{exercise.slug}")


def invariants_of(module: ModuleType) -> list[Callable]:
    """The module's checks, in the order they are written."""
    return [f for f in vars(module).values() if callable(f) and hasattr(f, "invariant_id")]


# Imported before the candidate loads. Without the sandbox the candidate runs as the user and can rewrite
# installed files (say, prepend a payload to numpy/random/__init__.py): a module the judge imported before
# that is beyond its reach for this check. tests/test_sandbox.py finds any module imported after the load.
# fsrs is not the judge's: `check` records a review with it once the grading is done. A check imports these while
# its worker boots (Session.import_while_booting) and, inside the sandbox, stops once it is up: so they are in the
# order they are needed, numpy.random first (the first check's inputs are drawn as soon as the file loads), then
# what every check uses, then what only a failure does.
JUDGE_MODULES = ("numpy.random", "attnprep.fromscratch", "fsrs", "tempfile", "fcntl", "json.encoder",
                 "json.decoder", "numpy.linalg", "attnprep.report")
JUDGE_MODULES_ON_FAILURE = ("attnprep.diagnosis", "numpy.ma")


def _warm_rich() -> None:
    """The report is drawn with rich, which loads its width and emoji tables on first use."""
    import sys

    if "rich" in sys.modules:
        try:
            from rich.cells import cell_len

            cell_len("✓✗⏱·…")
            importlib.import_module("rich._emoji_codes")
        except Exception:  # noqa: BLE001 - another rich version: the test of late imports says what to add
            pass


def _importer(name: str) -> Callable[[], None]:
    def step() -> None:
        try:
            importlib.import_module(name)
        except ImportError:  # fcntl on Windows
            pass
    return step


def judge_imports(also: tuple[str, ...] = (), rarely: tuple[str, ...] = ()) -> list[Callable[[], None]]:
    """What the judge will import after the candidate loads, and what the caller will (`also`, needed every time;
    `rarely`), as steps to take one at a time, most needed first."""
    names = (*JUDGE_MODULES, *also, *JUDGE_MODULES_ON_FAILURE, *rarely)
    return [_importer(name) for name in names] + [_warm_rich]


def prepare_judge(exercise: Exercise) -> tuple[ModuleType, ModuleType]:
    """The grader and the reference, with everything the judge will import, loaded before the candidate."""
    for step in judge_imports():
        step()
    return grader_module(exercise), reference_module(exercise)


def signatures_of(ref: ModuleType, functions: list[str]) -> dict[str, list[str]]:
    """Parameter names of the reference's functions, to name an argument in evidence ("q was modified ...")."""
    names = {}
    for fn in functions:
        try:
            names[fn] = list(inspect.signature(getattr(ref, fn)).parameters)
        except (AttributeError, TypeError, ValueError):
            names[fn] = []
    return names


UNCHANGED_ID = "input-unchanged"


def invariant_list(exercise: Exercise) -> list[tuple[str, str]]:
    """(id, description) of every invariant `check` judges for this exercise, in report order."""
    from attnprep import fromscratch

    items = [(c.invariant_id, c.description) for c in invariants_of(grader_module(exercise))]
    if fromscratch.applies(exercise.slug):
        items.append((fromscratch.ID, fromscratch.DESCRIPTION))
    return items


class LoadFailed(Exception):
    def __init__(self, status: str, message: str) -> None:
        super().__init__(message)
        self.status = status


class Session:
    """The candidate's file loaded in a worker, restarted after a crash or timeout."""

    def __init__(self, source: str, filename: str, functions: list[str], worker: Worker | None = None,
                 framework: str = "numpy", respawn: Callable[[], Worker | None] | None = None) -> None:
        self.source, self.filename, self.functions = source, filename, functions
        self.worker = worker  # may be started early, before the judge's imports
        self.respawn = respawn  # a worker after a crash (grade's fork server, this framework's), or None: cold
        self.framework = framework
        self.loaded = False
        self.deadline = 0.0
        self.cpu_seconds = 60
        self.output: list[str] = []
        # Seconds the framework's imports took in this session's workers (torch: 2-4 s each), which the
        # candidate's time does not pay for, up to IMPORT_CREDIT_S in all (a file that crashes every call
        # restarts the worker every call).
        self.credit = 0.0
        self.later: list[Callable[[], None]] = []  # imports to take while the worker boots (judge_imports)

    def _new_worker(self, **options) -> Worker:
        if self.respawn is not None and not options:
            forked = self.respawn()
            if forked is not None:
                return forked
        return Worker(cpu_seconds=self.cpu_seconds, framework=self.framework, **options)

    def import_while_booting(self) -> None:
        """Take the steps of `later` (judge_imports) while the worker boots, so that a check's NumPy worker and
        this process are ready at about the same time. Inside the sandbox the candidate cannot touch installed
        files, so the steps stop once the worker is up (what is left is imported when first used); without it,
        every step is taken before the candidate loads."""
        while self.later:
            if self.worker.sandboxed and self.worker.booted():
                return
            self.later.pop(0)()

    def _wait_ready(self) -> None:
        """The worker's `ready`; the time its framework's import took moves this call's deadline out."""
        self.import_while_booting()
        self.worker.wait_ready(self.deadline)
        if not self.worker.sandboxed:  # a sandbox that failed to start: the worker is a plain process after all
            while self.later:
                self.later.pop(0)()
        boot = min(self.worker.boot_s, max(0.0, IMPORT_CREDIT_S - self.credit))
        self.worker.boot_s = 0.0
        self.credit += boot
        self.deadline += boot

    def ensure_loaded(self) -> None:
        if self.worker is not None and self.worker.alive and self.loaded:
            return
        if self.worker is None or not self.worker.alive:
            self.worker = self._new_worker()
        self.loaded = False
        try:
            self._wait_ready()
            reply = self.worker.request({"op": "load", "source": self.source,
                                         "filename": self.filename,
                                         "functions": self.functions}, [], self.deadline)
        except WorkerTimeout:
            raise LoadFailed("timeout", "importing the file did not finish in time") from None
        except WorkerDied as exc:
            raise LoadFailed("error", f"the file ended the process while it was imported: {exc}") from None
        head = reply.header
        if head.get("kind") == "syntax":
            line = f" on line {head['line']}" if head.get("line") else ""
            raise LoadFailed("error", f"{head.get('type', 'SyntaxError')}{line}: {head.get('message')}")
        if head.get("kind") == "import":
            line = f" (line {head['line']})" if head.get("line") else ""
            text = f": {head.get('message')}" if head.get("message") else ""
            raise LoadFailed("error", f"importing the file raised {head.get('type')}{text}{line}")
        missing = head.get("missing") or []
        if missing:
            names = ", ".join(f"`{m}`" for m in missing)
            raise LoadFailed("error", f"the file does not define {names}")
        self.loaded = True

    def send(self, header: dict, blobs: list[bytes]):
        if header.get("measure"):
            return self._send_measured(header, blobs)
        self.ensure_loaded()
        return self._request(header, blobs)

    def _send_measured(self, header: dict, blobs: list[bytes]):
        """One call in a fresh worker whose memory the kernel accounts for, read by us once it has ended."""
        if self.worker is not None:
            self.collect_output()
            self.worker.kill()
        self.worker, self.loaded = self._new_worker(measure_memory=True), False
        try:
            self.ensure_loaded()
            reply = self._request(header, blobs)
        finally:
            self.collect_output()
            peak, problem = self.worker.finish_measured()
        reply.memory_peak, reply.memory_problem = peak, problem
        return reply

    def _request(self, header: dict, blobs: list[bytes]):
        try:
            return self.worker.request(header, blobs, self.deadline)
        except WorkerTimeout:
            raise CallTimeout(f"{header.get('fn')} did not return in time") from None
        except WorkerDied as exc:
            raise CandidateCrash(f"{header.get('fn')} crashed: {exc}") from None

    def close(self) -> None:
        if self.worker is not None:
            self.collect_output()
            self.worker.kill()

    def collect_output(self) -> None:
        if self.worker is not None:
            text = self.worker.output()
            if text and text not in self.output:
                self.output.append(text)


def _judge(check: Callable, cand: Candidate, ref: ModuleType, rng: np.random.Generator) -> tuple[str, str | None]:
    tally = Tally()
    token = CURRENT_TALLY.set(tally)
    try:
        status, message = _run_check(check, cand, ref, rng)
    finally:
        CURRENT_TALLY.reset(token)
    cand.tally = tally
    if status == "pass":
        # A check that raised no Fail has passed only if it compared something and passed over nothing.
        if not tally.judged:
            first = f" ({tally.broke[0]})" if tally.broke else ""
            return "not-judged", (f"not judged: no call of this check returned a result{first}; the other failures "
                                  "say why, and this check runs once they are fixed")
        if tally.broke:
            more = f" (and {len(tally.broke) - 1} more)" if len(tally.broke) > 1 else ""
            return "not-judged", (f"not judged in full: {tally.broke[0]}{more}, so part of this check could not "
                                  "run; it is judged once that is fixed")
    return status, message


def _run_check(check: Callable, cand: Candidate, ref: ModuleType,
               rng: np.random.Generator) -> tuple[str, str | None]:
    try:
        check(cand, ref, rng)
    except Fail as exc:
        return "fail", str(exc)
    except CandidateError as exc:
        if exc.not_implemented:
            return "fail", f"not implemented yet ({exc.fn} raises NotImplementedError)"
        return "error", f"{exc.call} raised {exc.described}" if exc.call else str(exc)
    except CallTimeout as exc:
        return "timeout", str(exc)
    except CandidateCrash as exc:
        return "error", str(exc)
    except LoadFailed as exc:
        return ("timeout" if exc.status == "timeout" else "error"), f"reloading the file: {exc}"
    except (ValueError, TypeError, IndexError, FloatingPointError, OverflowError) as exc:
        # The candidate returned something the check could not even compare.
        return "fail", f"could not judge the returned value ({type(exc).__name__}: {exc})"
    return "pass", None


def _changes_fail_unchanged(results: list[InvariantResult], changes: list[tuple[str, str]]) -> None:
    """A change in place made during any check fails `input-unchanged`, naming the call and the check."""
    if not changes:
        return
    for result in results:
        if result.id == UNCHANGED_ID and result.status in ("pass", "not-judged"):
            check_id, text = changes[0]
            more = f" ({len(changes) - 1} more call{'s' if len(changes) > 2 else ''} did the same)" \
                if len(changes) > 1 else ""
            result.status = "fail"
            result.message = f"during the `{check_id}` check, {text}{more}"


def _judge_from_scratch(slug: str, source: str, report: Report) -> None:
    """The from-scratch rule, read from the source here in the parent (never by running it)."""
    from attnprep import fromscratch

    if fromscratch.applies(slug):
        status, message = fromscratch.verdict(slug, source)
        if status == "pass" and not any(r.passed for r in report.invariants):
            # A stub, or a file that runs nowhere, calls no library shortcut, but that is no solution to pass.
            status, message = "not-judged", ("not judged until your functions run (they are not implemented yet, "
                                             "or every other check failed)")
        report.invariants.append(InvariantResult(fromscratch.ID, fromscratch.DESCRIPTION, status, message))


def _diagnose(module: ModuleType, ref: ModuleType, session: Session, seed: int, end: float) -> list[dict]:
    """Known mistakes behind the failures; best effort in the time left, never a verdict."""
    from attnprep.diagnosis import diagnose

    session.deadline = end
    token = CURRENT_TALLY.set(Tally())  # diagnosis judges nothing: its calls are not counted
    try:
        return diagnose(module, ref, Candidate(session.send), np.random.default_rng([seed, 7]),
                        other_framework=session.framework != "numpy")
    except (Fail, CallTimeout, CandidateCrash, LoadFailed, ValueError, TypeError):
        return []
    finally:
        CURRENT_TALLY.reset(token)


PRECISION_PROBES = 3  # the first probes of each function: enough to see the dtype of its results


def _precision_of(module: ModuleType, session: Session, seed: int, end: float) -> str:
    """The precision the file is judged at, from the dtype of what its functions return on the first probes.

    Best effort and never a verdict: a probe that raises or crashes says nothing (the checks will report it).
    """
    probes = getattr(module, "probes", None)
    if probes is None:
        return precision.FLOAT64
    session.deadline = min(end, time.monotonic() + 2.0)
    token = CURRENT_TALLY.set(Tally())  # these calls judge nothing
    seen: list[str | None] = []
    try:
        cand = Candidate(session.send)
        asked: dict[str, int] = {}
        for fn, args, kwargs in probes(np.random.default_rng([seed, 3])):
            # The first probes of each function: a grader whose probes open with a mask builder's (window's, whose
            # masks are bool) would otherwise never see the dtype of the attention it judges.
            if asked.get(fn, 0) >= PRECISION_PROBES:
                if all(asked.get(f, 0) >= PRECISION_PROBES for f in module.FUNCTIONS):
                    break
                continue
            asked[fn] = asked.get(fn, 0) + 1
            try:
                reply = cand.reply(fn, *args, **kwargs)
            except (CandidateError, Fail):
                continue
            # A PyTorch bfloat16 result arrives as float32 (NumPy has no bfloat16); the worker says so.
            seen.append(precision.FLOAT16 if reply.header.get("bfloat16") else precision.of_result(reply.value))
    except (CallTimeout, CandidateCrash, LoadFailed, ValueError, TypeError):
        pass
    finally:
        CURRENT_TALLY.reset(token)
    return precision.lowest(seen)


def grade(exercise: Exercise, source: str, filename: str, *, seed: int = 0,
          timeout: float = 10.0, worker: Worker | None = None, started: float | None = None,
          respawn: Callable[[], Worker | None] | None = None, also_import: tuple[str, ...] | None = None,
          rarely_import: tuple[str, ...] = ()) -> Report:
    """Grade `source` against every invariant of `exercise` within `timeout` seconds.

    `worker` may be a Worker started before this module was imported, and
    `started` the monotonic time the grading began (the timeout counts from it).
    `respawn` gives the worker (of the file's framework) that replaces a crashed one (None: start a cold one).
    `also_import`: modules the caller uses once the grading is done (`rarely_import`: may use). Given (a check),
    the judge's imports and these are taken while the worker boots (Session.import_while_booting); None (grade's
    judges, which reuse what they imported across files): the judge's own before anything else.
    """
    from attnprep import frameworks

    started = time.monotonic() if started is None else started
    framework = frameworks.detect(source)
    if also_import is None:
        module, ref, later = *prepare_judge(exercise), []
    else:
        later = judge_imports(also_import, rarely_import)
        module, ref = grader_module(exercise), reference_module(exercise)
    checks = invariants_of(module)
    signatures = signatures_of(ref, list(module.FUNCTIONS))
    changes: list[tuple[str, str]] = []
    if worker is not None and getattr(worker, "framework", "numpy") != framework:
        worker.kill()  # a worker booted ahead for NumPy files (grade's pool): this file needs the other kind
        worker = None
    if not frameworks.installed(framework):
        report = Report(exercise=exercise.slug, file=filename, status="error", seed=seed,
                        message=f"this is a PyTorch solution, and PyTorch is not installed: run "
                                f"{frameworks.TORCH_INSTALL}")
        report.elapsed_s = time.monotonic() - started
        return report
    session = Session(source, filename, list(module.FUNCTIONS), worker, framework, respawn)
    session.later = later
    session.deadline = started + timeout
    session.cpu_seconds = cpu_limit(timeout)
    # Moves out by the time the framework's imports take (torch), which is not the candidate's.

    def end_of() -> float:
        return started + timeout + session.credit

    report = Report(exercise=exercise.slug, file=filename, status="pass", seed=seed)
    judged_at = None
    try:
        try:
            session.ensure_loaded()
        except LoadFailed as exc:
            report.status, report.message = exc.status, str(exc)
            return report
        report.precision = _precision_of(module, session, seed, end_of())
        judged_at = precision.CURRENT.set(report.precision)
        measured = None
        if report.precision != precision.FLOAT64:
            # The reference on the float32-rounded inputs, and each call measuring the problem's conditioning.
            ref, measured = precision.RoundedReference(ref), ref
        for i, check in enumerate(checks):
            now = time.monotonic()
            left = end_of() - now
            if left <= 0.05:
                report.invariants.append(InvariantResult(
                    check.invariant_id, check.description, "skipped",
                    "no time left: an earlier check used it up"))
                continue
            share = left / (len(checks) - i) * FAIR_SHARE
            session.deadline = now + min(left, max(share, MIN_SLICE_S))
            credit_before = session.credit
            rng = np.random.default_rng([seed, zlib.crc32(check.invariant_id.encode())])
            cand = Candidate(session.send, signatures, reference=measured,
                             rounding=getattr(module, "FLOAT32_ROUNDING", None))
            status, message = _judge(check, cand, ref, rng)
            changes += [(check.invariant_id, text) for text in cand.tally.changed]
            if status == "timeout":
                given = session.deadline - now - (session.credit - credit_before)
                message = f"{message} (this check was given {given:.1f}s)"
            report.invariants.append(InvariantResult(check.invariant_id, check.description,
                                                     status, message, time.monotonic() - now))
            if status in ("timeout", "error"):
                session.collect_output()
        _changes_fail_unchanged(report.invariants, changes)
        _judge_from_scratch(exercise.slug, source, report)
        report.status = Report.status_of(report.invariants)
        if report.status == "fail" and end_of() - time.monotonic() > 0.2:
            report.mistakes = _diagnose(module, ref, session, seed, end_of())
        return report
    finally:
        if judged_at is not None:
            precision.CURRENT.reset(judged_at)
        session.close()
        report.output = "\n".join(session.output)
        report.elapsed_s = time.monotonic() - started
