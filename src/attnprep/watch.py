"""`attnprep watch`: re-grade on every save, with a live clock and hints on a key press.

A file that disappears is reported and watched for until it comes back; a
file that cannot load is shown as the load error it is; after a pass the
clock shown stops at the time of that pass.

File changes are found by polling the file's size, mtime and content hash,
which works everywhere (network drives, editors that replace the file,
containers) where file-system events are unreliable.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import select
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from attnprep import render, schedule, state, workspace
from attnprep.catalogue import Exercise
from attnprep.errors import AttnprepError

POLL_S = 0.3


def fingerprint(path: Path) -> tuple | None:
    """Cheap stat first; the hash only confirms a change (editors touch files without changing them)."""
    try:
        st = path.stat()
        return st.st_size, st.st_mtime_ns, hashlib.sha1(path.read_bytes()).hexdigest()
    except OSError:
        return None


@contextlib.contextmanager
def keypresses() -> Iterator:
    """Yield a function that returns a pressed key or None; no-op without a terminal."""
    if not sys.stdin.isatty():
        yield lambda timeout: (time.sleep(timeout), None)[1]
        return
    import termios
    import tty

    fd = sys.stdin.fileno()
    saved = termios.tcgetattr(fd)
    tty.setcbreak(fd)

    def read_key(timeout: float) -> str | None:
        ready, _, _ = select.select([fd], [], [], timeout)
        return os.read(fd, 1).decode(errors="replace") if ready else None

    try:
        yield read_key
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


def _grade(ex: Exercise, path: Path, timeout: float):
    from attnprep.engine import grade
    from attnprep.report import Report

    try:
        source = workspace.read_source(path)
    except workspace.SourceDecodeError as exc:
        report = Report(exercise=ex.slug, file=str(path), status="error", message=str(exc))
    except AttnprepError as exc:  # gone between the poll and the read
        report = Report(exercise=ex.slug, file=str(path), status="error", message=str(exc))
    else:
        report = grade(ex, source, str(path), timeout=timeout)
    report.clock = state.clock_of(state.load()["exercises"].get(ex.slug), ex.target_s)
    state.save_check(ex.slug, report, path)  # warns once if progress cannot be saved
    schedule.note_check(ex.slug, report)
    return report


def _next_hint(ex: Exercise) -> str:
    hints = ex.hints()
    _, new = state.reveal_hints(ex.slug, hints, False)
    if not new:
        return "every hint is already revealed (`attnprep solution` shows the reference)"
    return f"hint {new[0] + 1} of {len(hints)}: {hints[new[0]].text}"


def headline(report) -> str:
    """One line for a result: a load error as the error it is, else how many invariants passed."""
    if report.status == "error" and not report.invariants:
        return f"ERROR  could not load the file: {report.message}"
    return f"{report.status.upper()}  {report.summary()} of {len(report.invariants)} invariants"


def clock_at_pass(report) -> str:
    """The clock as it stood at a passing check: the watch stops counting there."""
    if not report.clock:
        return "clock: not started"
    return (f"clock: {render.minutes(report.clock['elapsed_s'])} of a {render.minutes(report.clock['target_s'])} "
            "target, stopped at the pass")


def _view(ex: Exercise, path: Path, report, hint: str | None, gone: bool = False):
    from rich.console import Group
    from rich.panel import Panel
    from rich.text import Text

    parts = [Text.assemble(("watching ", "dim"), str(path), ("  (h: next hint, q or Ctrl-C: quit)", "dim"))]
    if gone:
        parts.append(Text(f"{path.name} is gone (deleted or moved); waiting for it to come back", style="bold yellow"))
    if report is None:
        parts.append(Text("grading..." if not gone else ""))
    else:
        parts.append(Text(headline(report), style=render.STATUS_STYLE.get(report.status, "")))
        for inv in report.invariants:
            if not inv.passed:
                parts.append(Text.assemble(("  ✗ ", "red"), (inv.id, "bold"), f"  {inv.message or ''}"))
        for m in report.mistakes:
            parts.append(Text(f"  likely mistake: {m['id']}: {m['message']}", style="magenta"))
    if report is not None and report.passed:
        parts.append(Text(clock_at_pass(report), style="bold green"))
    else:
        parts.append(render.clock_line(state.clock_of(state.load()["exercises"].get(ex.slug), ex.target_s)))
    if hint:
        parts.append(Panel(hint, border_style="cyan"))
    return Group(*parts)


def run(path: Path, ex: Exercise, timeout: float) -> None:
    """Watch until q or Ctrl-C; each change of the file is graded and recorded as a check."""
    seen, report, hint, gone = None, None, None, False
    live = render.out.is_terminal

    def say(text: str) -> None:
        if not live:
            render.out.print(f"{time.strftime('%H:%M:%S')} {text}", highlight=False, soft_wrap=True)

    try:
        with keypresses() as read_key, contextlib.ExitStack() as stack:
            screen = None
            if live:
                from rich.live import Live

                screen = stack.enter_context(Live(_view(ex, path, None, None), console=render.out,
                                                  refresh_per_second=4, transient=False))
            else:
                render.out.print(f"watching {path} (Ctrl-C to stop)", soft_wrap=True)
            while True:
                current = fingerprint(path)
                if current is None and seen is not None and not gone:
                    gone = True
                    say(f"{path.name} is gone (deleted or moved); waiting for it to come back")
                if current is not None and current != seen:
                    if gone:
                        gone = False
                        say(f"{path.name} is back")
                    seen = current
                    report = _grade(ex, path, timeout)
                    if report.passed:
                        say(f"{headline(report)}; {clock_at_pass(report)}")
                    elif report.invariants:
                        say(f"{headline(report)}; failed: {', '.join(report.failed_ids)}")
                    else:
                        say(headline(report))
                key = read_key(POLL_S)
                if key in ("q", "Q"):
                    break
                if key in ("h", "H"):
                    hint = _next_hint(ex)
                    if not live:
                        render.say(hint)
                if screen is not None:
                    screen.update(_view(ex, path, report, hint, gone))
    except KeyboardInterrupt:
        pass
    render.err.print("stopped watching")
