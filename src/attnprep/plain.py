"""Output without rich, for `list` and `status`, which must start about as fast as `import typer`.

Importing rich's console alone costs more than the 30% margin issue #5 allows
over `import typer`, so these two tables are drawn here in rich's default look
(heavy head, title above) and follow the same colour rules: NO_COLOR and
TERM=dumb turn colour off, FORCE_COLOR turns it on, otherwise only a terminal
gets it. Piped output is never wrapped, so `attnprep list | grep mha` gives one
whole line per exercise.
"""

from __future__ import annotations

import os
import shutil
import sys
import textwrap
from collections.abc import Sequence
from typing import TextIO

# A cell is its text, or (text, style) with a style named below.
Cell = str | tuple[str, str]

_SGR = {"bold": "1", "dim": "2", "italic": "3", "red": "31", "green": "32", "yellow": "33", "cyan": "36"}
_HEAVY = {"top": "┏━┳┓", "head": "┃┃┃", "under_head": "┡━╇┩", "body": "│││", "bottom": "└─┴┘"}
_ASCII = {"top": "+-++", "head": "|||", "under_head": "+-++", "body": "|||", "bottom": "+-++"}


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
        wrapped = [textwrap.wrap(text, w, break_long_words=True) or [""]
                   for (text, _), w in zip(parts, widths, strict=True)]
        lines = []
        for k in range(max(len(w) for w in wrapped)):
            shown = []
            for (_, style), chunks, w, (_, justify) in zip(parts, wrapped, widths, columns, strict=True):
                piece = chunks[k] if k < len(chunks) else ""
                pad, text = " " * (w - len(piece)), styled(piece, style, colour)
                shown.append(" " + (pad + text if justify == "right" else text + pad) + " ")
            lines.append(outer + inner.join(shown) + outer)
        return lines

    out = [styled(title, "italic", colour), rule("top")]
    out += line("head", [(name, "bold") for name, _ in columns])
    out.append(rule("under_head"))
    for row in cells:
        out += line("body", row)
    out.append(rule("bottom"))
    return "\n".join(out) + "\n"


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
