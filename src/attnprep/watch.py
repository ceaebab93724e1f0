"""`attnprep watch`: re-grade on every save, with a live clock and hints on a key press.

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

    report = grade(ex, workspace.read_source(path), str(path), timeout=timeout)
    report.clock = state.clock_of(state.load()["exercises"].get(ex.slug), ex.target_s)
    state.record_check(ex.slug, report.status, report.failed_ids, report.clock)
    schedule.note_check(ex.slug, report)
    return report


def _next_hint(ex: Exercise) -> str:
    hints = ex.hints()
    _, new = state.reveal_hints(ex.slug, [h.invariants for h in hints], False)
    if not new:
        return "every hint is already revealed (`attnprep solution` shows the reference)"
    return f"hint {new[0] + 1} of {len(hints)}: {hints[new[0]].text}"


def _view(ex: Exercise, path: Path, report, hint: str | None):
    from rich.console import Group
    from rich.panel import Panel
    from rich.text import Text

    parts = [Text.assemble(("watching ", "dim"), str(path), ("  (h: next hint, q or Ctrl-C: quit)", "dim"))]
    if report is None:
        parts.append(Text("grading..."))
    else:
        head = Text.assemble((report.status.upper(), render.STATUS_STYLE.get(report.status, "")),
                             f"  {sum(i.passed for i in report.invariants)}/{len(report.invariants)} invariants")
        parts.append(head)
        if report.message:
            parts.append(Text(f"  {report.message}", style="red"))
        for inv in report.invariants:
            if not inv.passed:
                parts.append(Text.assemble(("  ✗ ", "red"), (inv.id, "bold"), f"  {inv.message or ''}"))
        for m in report.mistakes:
            parts.append(Text(f"  likely mistake: {m['id']}: {m['message']}", style="magenta"))
    clock = state.clock_of(state.load()["exercises"].get(ex.slug), ex.target_s)
    parts.append(render.clock_line(clock))
    if hint:
        parts.append(Panel(hint, border_style="cyan"))
    return Group(*parts)


def run(path: Path, ex: Exercise, timeout: float) -> None:
    """Watch until q or Ctrl-C; each change of the file is graded and recorded as a check."""
    seen, report, hint = None, None, None
    live = render.out.is_terminal
    try:
        with keypresses() as read_key, contextlib.ExitStack() as stack:
            screen = None
            if live:
                from rich.live import Live

                screen = stack.enter_context(Live(_view(ex, path, None, None), console=render.out,
                                                  refresh_per_second=4, transient=False))
            else:
                render.out.print(f"watching {path} (Ctrl-C to stop)")
            while True:
                current = fingerprint(path)
                if current is not None and current != seen:
                    seen = current
                    report = _grade(ex, path, timeout)
                    if not live:
                        failed = ", ".join(report.failed_ids) or "-"
                        render.out.print(f"{time.strftime('%H:%M:%S')} {report.status.upper()} failed: {failed}",
                                         highlight=False)
                key = read_key(POLL_S)
                if key in ("q", "Q"):
                    break
                if key in ("h", "H"):
                    hint = _next_hint(ex)
                    if not live:
                        render.out.print(hint)
                if screen is not None:
                    screen.update(_view(ex, path, report, hint))
    except KeyboardInterrupt:
        pass
    render.err.print("stopped watching")
