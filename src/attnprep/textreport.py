"""A check's text report, written without rich: rich's import is a tenth of a whole `check`.

The look is render.py's, line for line: the same words, wrapping (plain.wrap to the console's width), marks and
styles, and tests/test_textreport.py holds the two to the same text. Colour follows rich's rules, so that
`check` looks the same whichever draws it: a terminal (or TTY_COMPATIBLE=1, or a non-empty FORCE_COLOR) gets
styles, TERM=dumb gets none, NO_COLOR keeps bold and dim but drops the colours. The width is COLUMNS, else the
terminal's (of stdin, stdout or stderr), else 80. What this module does not draw (the panel of what the file
printed) rich draws, imported then; and on Windows rich draws it all (a legacy console needs its win32 calls).
"""

from __future__ import annotations

import os
import re
import sys
from typing import Any

from attnprep.plain import minutes, wrap

STATUS_STYLE = {"pass": "bold green", "fail": "bold red", "error": "bold red",
                "timeout": "bold yellow", "skipped": "dim", "not-judged": "bold yellow"}
MARK = {"pass": "✓", "fail": "✗", "error": "!", "timeout": "⏱", "skipped": "-", "not-judged": "·"}

_ATTRIBUTES = {"bold": "1", "dim": "2", "italic": "3"}
_COLOURS = {"red": "31", "green": "32", "yellow": "33", "magenta": "35", "cyan": "36"}
_TRAILING = re.compile(r"[ \t]+(?=(?:\x1b\[[0-9;]*m)*$)")

_WINDOWS = sys.platform == "win32"
Segment = tuple[str, str]  # (text, style): a style is words of _ATTRIBUTES and _COLOURS, or ""
Line = list[Segment]


def _terminal(stream: Any) -> bool:
    tty_compatible = os.environ.get("TTY_COMPATIBLE", "")
    if tty_compatible in ("0", "1"):
        return tty_compatible == "1"
    if "FORCE_COLOR" in os.environ:
        return os.environ["FORCE_COLOR"] != ""
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def _dumb() -> bool:
    return os.environ.get("TERM", "").lower() in ("dumb", "unknown")


class Styles:
    """How lines are drawn on one stream: whether styles and colours show, and the width prose wraps to."""

    def __init__(self, stream: Any) -> None:
        terminal = _terminal(stream)
        self.styles = terminal and not _dumb()
        self.colours = self.styles and os.environ.get("NO_COLOR", "") == ""
        self.width = _width(terminal)

    def draw(self, segments: Line) -> str:
        parts = []
        for text, style in segments:
            codes = [_ATTRIBUTES[w] for w in style.split() if w in _ATTRIBUTES]
            if self.colours:
                codes += [_COLOURS[w] for w in style.split() if w in _COLOURS]
            parts.append(f"\x1b[{';'.join(codes)}m{text}\x1b[0m" if self.styles and codes and text else text)
        return _TRAILING.sub("", "".join(parts))


def _width(terminal: bool) -> int:
    """rich's Console.size: COLUMNS (before a dumb terminal's 80 only with LINES set too), the first of stdin,
    stdout and stderr that is a terminal, else 80."""
    columns = int(os.environ["COLUMNS"]) if os.environ.get("COLUMNS", "").isdigit() else None
    if columns is not None and os.environ.get("LINES", "").isdigit():
        return columns
    if terminal and _dumb():
        return 80
    if columns is not None:
        return columns
    for fd in (0, 1, 2):
        try:
            return os.get_terminal_size(fd).columns or 80
        except (AttributeError, ValueError, OSError):
            continue
    return 80


def _length(segments: Line) -> int:
    return sum(len(text) for text, _ in segments)


def hanging(head: Line, body: str, style: str, width: int, base: str = "") -> list[Line]:
    """`head`, then `body` wrapped beside it, each continuation line indented to where the body starts. `base`:
    the style of the head's line as a whole, which its part of the body takes on too (as rich draws it)."""
    indent = _length(head)
    lines = wrap(body, max(width - indent, 20))
    shown = [[*head, (lines[0] if lines else "", " ".join(dict.fromkeys(f"{base} {style}".split())))]]
    shown += [[(" " * indent + line if line else "", style)] for line in lines[1:]]
    return shown


def summary_line(rep: Any) -> str:
    """'9 passed, 3 failed, 1 not judged of 13 invariants in 0.31s (seed 0)'."""
    counted = f"{rep.summary()} of {len(rep.invariants)} invariants" if rep.invariants else "no invariant ran"
    return f"{counted} in {rep.elapsed_s:.2f}s (seed {rep.seed}){precision_note(rep)}"


def precision_note(rep: Any) -> str:
    """Said once, after the summary, when the results were not judged at float64."""
    judged_at = getattr(rep, "precision", "float64")
    if judged_at == "float32":
        return "; judged at float32 precision, as your results are float32"
    if judged_at == "float16":
        return ("; judged at float32 precision, which float16 and bfloat16 results cannot reach: compute in "
                "float32 or float64 and cast at the end if you must")
    return ""


def clock_segments(clock: dict[str, Any] | None) -> Line:
    if not clock:
        return [("clock: not started (attnprep start SLUG starts it)", "dim")]
    over = clock["elapsed_s"] > clock["target_s"]
    return [("clock: ", ""), (minutes(clock["elapsed_s"]), "bold red" if over else "bold"),
            (f" of a {minutes(clock['target_s'])} target", ""), (" (over time)" if over else "", "red")]


def _invariant_lines(rep: Any, width: int) -> list[Line]:
    lines: list[Line] = []
    ids = max((len(i.id) for i in rep.invariants), default=0)
    stacked = width - (4 + ids + 2) < 30  # too narrow for the description beside the id: put it underneath
    said = None  # the last evidence shown: a stub fails every check with the same words, said once
    for inv in rep.invariants:
        style = STATUS_STYLE.get(inv.status, "")
        head: Line = [("  ", ""), (MARK.get(inv.status, "?"), style), (" ", ""), (inv.id, "" if inv.passed else "bold")]
        if stacked:
            lines.append(head)
            head = [("      ", "")]
        else:
            head.append((" " * (ids - len(inv.id) + 2), ""))
        lines += hanging(head, inv.description, "dim" if inv.passed else "", width)
        if inv.message:
            repeated = inv.message == said and len(inv.message) > 40
            lines += hanging([(" " * _length(head), "")], "as above" if repeated else inv.message,
                             "dim" if repeated else style.replace("bold ", ""), width)
            said = inv.message
    return lines


def _mistake_lines(rep: Any, width: int) -> list[Line]:
    lines: list[Line] = []
    for mistake in rep.mistakes:
        label = "  likely mistake: "
        body = f"{mistake['id']}: {mistake['message']}"
        if width - len(label) < 30:  # narrow: the label on its own line, the text indented under it
            lines += [[("  likely mistake:", "bold magenta")]] + hanging([("      ", "")], body, "", width)
        else:
            lines += hanging([(label, "bold magenta")], body, "", width, base="bold magenta")
    return lines


def report(rep: Any, clock_started_now: bool = False, stream: Any = None) -> None:
    """A check report: one line per invariant, evidence under each failure, wrapped to the width."""
    if _WINDOWS and stream is None:  # a legacy console wants rich's win32 calls, not escape codes
        from attnprep import render

        return render.report(rep, clock_started_now)
    stream = stream or sys.stdout
    look = Styles(stream)
    width = look.width
    lines: list[Line] = [[(rep.status.upper(), STATUS_STYLE.get(rep.status, "bold")),
                          (f"  {rep.exercise}  {rep.file}", "")]]
    if rep.message:
        label = "could not load the file: " if rep.status == "error" and not rep.invariants else ""
        lines += hanging([("  " + label, "red")], rep.message, "red", width, base="red")
    lines += _invariant_lines(rep, width) + _mistake_lines(rep, width)
    _write(stream, look, lines)
    if rep.output:  # a box around what the file printed: rich's Panel
        from rich.panel import Panel

        from attnprep import render

        shown = rep.output if len(rep.output) < 600 else rep.output[:600] + " ..."
        render.out.print(Panel(shown, title="your file printed", border_style="dim", expand=False))
        render.out.file.flush()
    lines = hanging([], summary_line(rep), "dim", width)
    if clock_started_now and not rep.clock:
        lines += hanging([("clock: ", "dim")], "started now, by this first check", "dim", width, base="dim")
    else:
        lines.append(clock_segments(rep.clock))
    _write(stream, look, lines)


def next_step(rep: Any, slug: str, timeout: float, file: str, stream: Any = None) -> None:
    """The one line after a report that did not pass: a longer timeout if time ran out, else a hint."""
    if rep.passed:
        return
    if _WINDOWS and stream is None:
        from attnprep import render

        return render.next_step(rep, slug, timeout, file)
    stream = stream or sys.stdout
    look = Styles(stream)
    lines: list[Line] = []
    statuses = {i.status for i in rep.invariants} | {rep.status}
    if statuses & {"timeout", "skipped"}:
        longer = max(10.0, timeout * 4)
        lines += hanging([], f"out of time at --timeout {timeout:g}: if the file is right but slow, give it "
                             f"longer, `attnprep check {file} --timeout {longer:g}`", "dim", look.width)
    if statuses & {"fail", "error"}:
        lines += hanging([], f"stuck? `attnprep hint {slug}`", "dim", look.width)
    _write(stream, look, lines)


def _write(stream: Any, look: Styles, lines: list[Line]) -> None:
    stream.write("".join(look.draw(line) + "\n" for line in lines))
    stream.flush()
