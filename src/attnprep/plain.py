"""Output without rich, for `list` and `status`, which must start about as fast as `import typer`.

Importing rich's console alone costs more than the 30% margin issue #5 allows
over `import typer`, so these two tables are drawn here in rich's default look
(heavy head, title above) and follow the same colour rules: NO_COLOR and
TERM=dumb turn colour off, FORCE_COLOR turns it on, otherwise only a terminal
gets it. Piped output is never wrapped, so `attnprep list | grep mha` gives one
whole line per exercise; with COLUMNS set or on a terminal the tables fit the
width, and when even the narrowest table would not, each row becomes a short
block of lines.

`wrap` is the one place prose is wrapped for the terminal: paragraphs are
reflowed from their words (so text stored hard-wrapped is not wrapped twice),
code and identifiers are never split, and lines carry no trailing spaces.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Sequence
from typing import TextIO

# A cell is its text, or (text, style) with a style named below.
Cell = str | tuple[str, str]

_SGR = {"bold": "1", "dim": "2", "italic": "3", "red": "31", "green": "32", "yellow": "33", "cyan": "36"}
_HEAVY = {"top": "┏━┳┓", "head": "┃┃┃", "under_head": "┡━╇┩", "body": "│││", "bottom": "└─┴┘"}
_ASCII = {"top": "+-++", "head": "|||", "under_head": "+-++", "body": "|||", "bottom": "+-++"}


def wrap(text: str, width: int | None) -> list[str]:
    """The lines of `text` at most `width` wide (None: one line per paragraph).

    Paragraphs are separated by blank lines and reflowed from their words; a
    line indented by four spaces or more is code and kept as it is. Words are
    never split: one longer than `width` gets a line of its own.
    """
    lines: list[str] = []
    paragraph: list[str] = []

    def flush() -> None:
        words = _units(" ".join(paragraph).split())
        paragraph.clear()
        line = ""
        for word in words:
            if line and width is not None and len(line) + 1 + len(word) > width:
                lines.append(line)
                line = word
            else:
                line = f"{line} {word}" if line else word
        if line:
            lines.append(line)

    for raw in text.strip("\n").splitlines():
        if raw.startswith("    ") or raw.startswith("\t"):
            flush()
            lines.append(raw.rstrip())
        elif not raw.strip():
            flush()
            if lines and lines[-1]:
                lines.append("")
        else:
            paragraph.append(raw)
    flush()
    while lines and not lines[-1]:
        lines.pop()
    return lines


_OPEN, _CLOSE = "([{", ")]}"


def _units(words: list[str], longest: int = 24) -> list[str]:
    """Words, with a short bracketed group such as `(B, T, d_model)` or a `code span` kept as one unit."""
    units: list[str] = []
    i = 0
    while i < len(words):
        group, depth, ticks = words[i], 0, 0
        j = i
        while True:
            depth += sum(words[j].count(c) for c in _OPEN) - sum(words[j].count(c) for c in _CLOSE)
            ticks += words[j].count("`")
            if (depth <= 0 and ticks % 2 == 0) or j + 1 == len(words) or len(group) + 1 + len(words[j + 1]) > longest:
                break
            j += 1
            group += " " + words[j]
        if depth <= 0 and ticks % 2 == 0 and j > i:
            units.append(group)
            i = j + 1
        else:
            units.append(words[i])
            i += 1
    return _glue_operators(units, longest)


_OPERATORS = {"=", "==", "!=", "<", ">", "<=", ">=", "+", "-", "*", "/", "//", "%", "@", "->"}


def _glue_operators(units: list[str], longest: int) -> list[str]:
    """Keep a short formula such as `T = 1` or `i - j` on one line: an operator binds to both its neighbours."""
    out: list[str] = []
    i = 0
    while i < len(units):
        if (units[i] in _OPERATORS and out and i + 1 < len(units)
                and len(out[-1]) + len(units[i]) + len(units[i + 1]) + 2 <= longest):
            out[-1] = f"{out[-1]} {units[i]} {units[i + 1]}"
            i += 2
        else:
            out.append(units[i])
            i += 1
    return out


def wants_colour(stream: TextIO) -> bool:
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return stream.isatty()


def width_limit(stream: TextIO) -> int | None:
    """The terminal's width; COLUMNS when set; no limit for a pipe or file."""
    if os.environ.get("COLUMNS", "").isdigit():
        return int(os.environ["COLUMNS"])
    return shutil.get_terminal_size().columns if stream.isatty() else None


def styled(text: str, style: str, colour: bool) -> str:
    codes = [_SGR[s] for s in style.split() if s in _SGR]
    return f"\x1b[{';'.join(codes)}m{text}\x1b[0m" if colour and codes and text else text


def _fit(widths: list[int], floors: list[int], limit: int | None) -> list[int]:
    """Narrow the widest columns, one character at a time, until the table fits or cannot narrow."""
    widths = list(widths)
    if limit is None:
        return widths
    while sum(widths) + 3 * len(widths) + 1 > limit:
        shrinkable = [i for i, w in enumerate(widths) if w > floors[i]]
        if not shrinkable:
            break
        widest = max(shrinkable, key=lambda i: widths[i])
        widths[widest] -= 1
    return widths


def render(title: str, columns: Sequence[tuple[str, str]], rows: Sequence[Sequence[Cell]], *,
           colour: bool = False, limit: int | None = None, ascii_only: bool = False) -> str:
    """The table as text; `columns` are (header, "left" | "right")."""
    box = _ASCII if ascii_only else _HEAVY
    cells = [[(c, "") if isinstance(c, str) else c for c in row] for row in rows]
    natural = [max([len(name)] + [len(row[i][0]) for row in cells]) for i, (name, _) in enumerate(columns)]
    # A column narrows down to its longest word: a table wider than the terminal beats broken words.
    floors = [max(len(word) for text in [name] + [row[i][0] for row in cells] for word in text.split() or [""])
              for i, (name, _) in enumerate(columns)]
    widths = _fit(natural, floors, limit)

    def rule(kind: str) -> str:
        left, fill, join, right = box[kind]
        return left + join.join(fill * (w + 2) for w in widths) + right

    def line(kind: str, parts: list[tuple[str, str]]) -> list[str]:
        outer, inner, _ = box[kind]
        wrapped = [wrap(text, w) or [""] for (text, _), w in zip(parts, widths, strict=True)]
        lines = []
        for k in range(max(len(w) for w in wrapped)):
            shown = []
            for (_, style), chunks, w, (_, justify) in zip(parts, wrapped, widths, columns, strict=True):
                piece = chunks[k] if k < len(chunks) else ""
                pad, text = " " * (w - len(piece)), styled(piece, style, colour)
                shown.append(" " + (pad + text if justify == "right" else text + pad) + " ")
            lines.append(outer + inner.join(shown) + outer)
        return lines

    if limit is not None and sum(widths) + 3 * len(widths) + 1 > limit:
        return _stacked(title, columns, cells, colour, limit)
    out = [styled(title, "italic", colour), rule("top")]
    out += line("head", [(name, "bold") for name, _ in columns])
    out.append(rule("under_head"))
    for row in cells:
        out += line("body", row)
    out.append(rule("bottom"))
    return "\n".join(out) + "\n"


def _stacked(title: str, columns: Sequence[tuple[str, str]], cells: list[list[tuple[str, str]]], colour: bool,
             limit: int) -> str:
    """A table too wide for the terminal as one block per row: the first cell, then `header value` pairs."""
    out = [styled(title, "italic", colour)]
    for row in cells:
        (first, style), rest = row[0], row[1:]
        out.append(styled(first, style or "bold", colour))
        pairs = [(f"{name} {text}", style) for (name, _), (text, style) in zip(columns[1:], rest, strict=True)]
        line = ""
        for text, style in pairs:
            if line and len(_plain(line)) + 3 + len(text) > limit:
                out.append(line)
                line = ""
            if not line and len(text) + 2 > limit:  # longer than a line on its own: wrap it, words whole
                pieces = wrap(text, max(limit - 4, 10))
                out += [("  " if k == 0 else "    ") + styled(piece, style, colour) for k, piece in enumerate(pieces)]
                continue
            shown = styled(text, style, colour)
            line = f"{line} · {shown}" if line else f"  {shown}"
        if line:
            out.append(line)
    return "\n".join(out) + "\n"


def _plain(text: str) -> str:
    import re

    return re.sub(r"\x1b\[[0-9;]*m", "", text)


def minutes(seconds: float | None) -> str:
    """A duration as m:ss (or h:mm:ss); "-" for none."""
    if seconds is None:
        return "-"
    seconds = int(round(seconds))
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


def exercise_table(rows: Sequence[dict]) -> None:
    colours = {"solved": "green", "started": "yellow", "new": "dim"}
    print_table("attnprep exercises",
                [("slug", "left"), ("title", "left"), ("target", "right"), ("difficulty", "left"),
                 ("state", "left"), ("best", "right"), ("due", "left")],
                [[r["slug"], r["title"], f"{r['minutes']} min", r["difficulty"], (r["state"], colours[r["state"]]),
                  minutes(r["best_s"]), (r.get("due_when", "-"), "bold" if r.get("due_when") == "now" else "")]
                 for r in rows])


def status_table(rows: Sequence[dict]) -> None:
    print_table("attnprep progress",
                [("slug", "left"), ("state", "left"), ("attempts", "right"), ("hints", "right"),
                 ("first pass", "right"), ("best", "right"), ("last check", "left")],
                [[r["slug"], r["state"], str(r["attempts"]), str(r["hints_used"]), minutes(r["first_pass_s"]),
                  minutes(r["best_s"]), r["last_status"] or "-"] for r in rows])


def print_table(title: str, columns: Sequence[tuple[str, str]], rows: Sequence[Sequence[Cell]],
                stream: TextIO | None = None) -> None:
    stream = stream or sys.stdout
    try:
        "┏━┃│└".encode(stream.encoding or "ascii")
        ascii_only = False
    except (UnicodeEncodeError, LookupError):
        ascii_only = True
    stream.write(render(title, columns, rows, colour=wants_colour(stream), limit=width_limit(stream),
                        ascii_only=ascii_only))
    stream.flush()
