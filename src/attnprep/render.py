"""Terminal output with rich: results on stdout, messages on stderr.

Prose is wrapped once, by plain.wrap, to the console's width (COLUMNS, the
terminal, or 80 when piped): words and code are never split, every
continuation line is indented under the text it continues, and no line ends
in spaces, on a terminal or in a pipe.
"""

from __future__ import annotations

import io
import re
import sys
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from attnprep import textreport
from attnprep.plain import minutes, wrap
from attnprep.textreport import summary_line

_TRAILING = re.compile(r"[ \t]+(?=(?:\x1b\[[0-9;]*m)*\r?\n)")


class _Trimmed(io.TextIOBase):
    """sys.stdout or sys.stderr (looked up at each write), with the spaces rich pads lines with removed."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self._name, self._pending = name, ""

    @property
    def _stream(self):
        stream = getattr(sys, self._name)
        # rich's Live swaps sys.stdout for a proxy that writes back to this console: go past it
        return getattr(stream, "rich_proxied_file", None) or stream

    def write(self, text: str) -> int:
        head, newline, tail = (self._pending + text).rpartition("\n")
        if newline:
            self._stream.write(_TRAILING.sub("", head + newline))
            self._pending = tail
        else:
            self._pending = tail
        return len(text)

    def flush(self) -> None:
        if self._pending:
            self._stream.write(self._pending)
            self._pending = ""
        self._stream.flush()

    def isatty(self) -> bool:
        return self._stream.isatty()

    def fileno(self) -> int:
        return self._stream.fileno()

    @property
    def encoding(self) -> str:
        return getattr(self._stream, "encoding", None) or "utf-8"


out = Console(file=_Trimmed("stdout"), highlight=False)
err = Console(file=_Trimmed("stderr"), highlight=False)

# One look for both drawers of a report: textreport (no rich, what `check` uses) and this module.
STATUS_STYLE, _MARK = textreport.STATUS_STYLE, textreport.MARK


def error(message: str, hint: str | None = None) -> None:
    err.print(Text.assemble(("error", "bold red"), f": {message}"), soft_wrap=True)
    if hint:
        err.print(Text.assemble(("hint", "bold cyan"), f": {hint}"), soft_wrap=True)


def warning(message: str) -> None:
    err.print(Text.assemble(("warning", "bold yellow"), f": {message}"), soft_wrap=True)


def clock_line(clock: dict[str, Any] | None) -> Text:
    if not clock:
        return Text("clock: not started (attnprep start SLUG starts it)", style="dim")
    over = clock["elapsed_s"] > clock["target_s"]
    return Text.assemble("clock: ", (minutes(clock["elapsed_s"]), "bold red" if over else "bold"),
                         f" of a {minutes(clock['target_s'])} target",
                         (" (over time)" if over else "", "red"))


def _hanging(head: Text, body: str, style: str = "", width: int | None = None) -> list[Text]:
    """`head` then `body` wrapped beside it, each continuation indented to where the body starts."""
    width = width or out.width
    indent = head.cell_len
    lines = wrap(body, max(width - indent, 20))
    shown = [head.copy()]
    shown[0].append(lines[0] if lines else "", style=style)
    shown += [Text(" " * indent + line if line else "", style=style) for line in lines[1:]]
    return shown


def _print_lines(lines: list[Text]) -> None:
    for line in lines:
        line.rstrip()
        out.print(line, soft_wrap=True)


def say(text: str, style: str = "", console: Console | None = None) -> None:
    """A message of prose, wrapped to the width at spaces only (a path or command is never split)."""
    console = console or out
    for line in wrap(text, max(console.width, 20)):
        console.print(Text(line, style=style), soft_wrap=True)


def report(rep, clock_started_now: bool = False) -> None:
    """A check report: one line per invariant, evidence under each failure, wrapped to the width."""
    width = out.width
    out.print(Text.assemble((rep.status.upper(), STATUS_STYLE.get(rep.status, "bold")),
                            f"  {rep.exercise}  {rep.file}"), soft_wrap=True)
    if rep.message:
        label = "could not load the file: " if rep.status == "error" and not rep.invariants else ""
        _print_lines(_hanging(Text("  " + label, style="red"), rep.message, "red", width))
    ids = max((len(i.id) for i in rep.invariants), default=0)
    stacked = width - (4 + ids + 2) < 30  # too narrow for the description beside the id: put it underneath
    said = None  # the last evidence printed: a stub fails every check with the same words, said once
    for inv in rep.invariants:
        style = STATUS_STYLE.get(inv.status, "")
        head = Text.assemble("  ", (_MARK.get(inv.status, "?"), style), " ",
                             (inv.id, "" if inv.passed else "bold"))
        if stacked:
            _print_lines([head])
            head = Text("      ")
        else:
            head.append(" " * (ids - len(inv.id) + 2))
        lines = _hanging(head, inv.description, "dim" if inv.passed else "", width)
        if inv.message:
            repeated = inv.message == said and len(inv.message) > 40
            lines += _hanging(Text(" " * head.cell_len), "as above" if repeated else inv.message,
                              "dim" if repeated else style.replace("bold ", ""), width)
            said = inv.message
        _print_lines(lines)
    for mistake in rep.mistakes:
        label = Text("  likely mistake: ", style="bold magenta")
        body = f"{mistake['id']}: {mistake['message']}"
        if width - label.cell_len < 30:  # narrow: the label on its own line, the text indented under it
            _print_lines([Text("  likely mistake:", style="bold magenta")] + _hanging(Text("      "), body, "", width))
        else:
            _print_lines(_hanging(label, body, "", width))
    if rep.output:
        shown = rep.output if len(rep.output) < 600 else rep.output[:600] + " ..."
        out.print(Panel(shown, title="your file printed", border_style="dim", expand=False))
    _print_lines(_hanging(Text(""), summary_line(rep), "dim", width))
    if clock_started_now and not rep.clock:
        _print_lines(_hanging(Text("clock: ", style="dim"), "started now, by this first check", "dim", width))
    else:
        out.print(clock_line(rep.clock), soft_wrap=True)


def next_step(rep, slug: str, timeout: float, file: str) -> None:
    """The one line after a report that did not pass: a longer timeout if time ran out, else a hint."""
    if rep.passed:
        return
    statuses = {i.status for i in rep.invariants} | {rep.status}
    if statuses & {"timeout", "skipped"}:
        longer = max(10.0, timeout * 4)
        _print_lines(_hanging(Text(""), f"out of time at --timeout {timeout:g}: if the file is right but slow, "
                              f"give it longer, `attnprep check {file} --timeout {longer:g}`", "dim"))
    if statuses & {"fail", "error"}:
        _print_lines(_hanging(Text(""), f"stuck? `attnprep hint {slug}`", "dim"))


def markdown(text: str) -> None:
    from rich.markdown import Markdown  # markdown-it is slow to import: only `show` needs it

    out.print(Markdown(text))


def code(text: str, title: str) -> None:
    from rich.syntax import Syntax  # pygments, likewise

    out.print(Panel(Syntax(text, "python", line_numbers=False, word_wrap=True), title=title,
                    expand=False))


def hint(number: int, total: int, text: str) -> None:
    """One hint in a box, its prose wrapped once to fit the width and its code lines kept whole."""
    body = Text("\n".join(wrap(text, max(out.width - 4, 20))), no_wrap=True, overflow="ignore")
    out.print(Panel(body, title=f"hint {number} of {total}", border_style="cyan", expand=False))


def batch_table(reports: list) -> None:
    table = Table(title="attnprep grade", title_justify="left")
    for name, justify in (("file", "left"), ("status", "left"), ("passed", "right"),
                          ("failed invariants", "left"), ("time", "right")):
        table.add_column(name, justify=justify, overflow="fold")
    for r in reports:
        failed = ", ".join(r.failed_ids) or (r.message or "")
        table.add_row(Path(r.file).name, Text(r.status, style=STATUS_STYLE.get(r.status, "")),
                      f"{sum(i.passed for i in r.invariants)}/{len(r.invariants)}", failed, f"{r.elapsed_s:.2f}s")
    out.print(table)
    counts = {s: sum(r.status == s for r in reports) for s in ("pass", "fail", "error", "timeout")}
    out.print(", ".join(f"{n} {s}" for s, n in counts.items() if n) + f" of {len(reports)} files")


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def mock_started(mock: dict[str, Any], written: list, asked: int | None = None) -> None:
    length = plural(mock["minutes"], "minute") if float(mock["minutes"]).is_integer() and mock["minutes"] >= 1 \
        else minutes(mock["minutes"] * 60)
    out.print(Text(f"mock interview: {plural(len(written), 'exercise')}, {length} on one clock", style="bold"))
    if asked is not None and asked > len(written):
        warning(f"you asked for {asked} exercises; only {len(written)} are not solved yet, so the mock has "
                f"{len(written)} (`attnprep reset SLUG` makes a solved one available again)")
    for path, kept in written:
        out.print(f"  wrote {path}" + (f" (kept your previous file as {kept.name})" if kept else ""), soft_wrap=True)
    say("`attnprep check FILE` shows the time left; `attnprep mock --end` ends it with a scorecard.")


def mock_left(seconds: float) -> None:
    style = "bold red" if seconds < 300 else "bold"
    out.print(Text.assemble("mock interview: ", (minutes(max(seconds, 0)), style), " left"))


def scorecard(mock: dict[str, Any], rows: list[dict[str, Any]]) -> None:
    table = Table(title=f"mock interview scorecard ({mock['minutes']} minutes)", title_justify="left")
    for name in ("exercise", "solved", "time", "checks", "hints", "failed on the way"):
        table.add_column(name, overflow="fold")
    for r in rows:
        table.add_row(r["slug"], Text("yes", style="green") if r["solved"] else Text("no", style="red"),
                      minutes(r["time_s"]), str(r["checks"]), str(r["hints_used"]),
                      ", ".join(r["failed_on_the_way"]) or "-")
    out.print(table)
    out.print(f"solved {sum(r['solved'] for r in rows)} of {len(rows)}")


def history_table(rows: list[dict[str, Any]]) -> None:
    table = Table(title="attnprep report", title_justify="left")
    for name in ("exercise", "attempts", "hints", "first pass", "target", "failed most often"):
        table.add_column(name, overflow="fold")
    for r in rows:
        over = r["first_pass_s"] is not None and r["first_pass_s"] > r["target_s"]
        table.add_row(r["slug"], str(r["attempts"]), str(r["hints_used"]),
                      Text(minutes(r["first_pass_s"]), style="red" if over else ""), minutes(r["target_s"]),
                      ", ".join(f"{i} ({n})" for i, n in r["top_failures"]) or "-")
    out.print(table)


def invariant_list(items: list[tuple[str, str]]) -> None:
    """`show`'s list of invariants: ids in a column, descriptions wrapped beside them."""
    out.print(Text("\nThe invariants `attnprep check` judges, in report order:", style="bold"), soft_wrap=True)
    width = out.width
    ids = max((len(i) for i, _ in items), default=0)
    for inv_id, description in items:
        if width - ids - 2 < 30:
            _print_lines([Text(inv_id, style="bold")] + _hanging(Text("    "), description, "", width))
        else:
            _print_lines(_hanging(Text.assemble((inv_id, "bold"), " " * (ids - len(inv_id) + 2)), description, "",
                                  width))



def interview_note(note: dict[str, Any] | None, to_stderr: bool) -> None:
    """What an interview says after a check of its current stage: the follow-up, the time left, or the end."""
    if not note:
        return
    console = err if to_stderr else out
    if "passed" in note:
        say(f"interview {note['track']}: stage {note['stage']} of {note['of']} passed in "
            f"{minutes(note['passed']['time_s'])}", "bold green", console)
    if "next" in note:
        nxt = note["next"]
        say(f"interviewer: {nxt['ask']}", "bold", console)
        kept = f" (kept your previous file as {Path(nxt['kept']).name})" if nxt["kept"] else ""
        console.print(f"stage {nxt['stage']} of {nxt['of']}: wrote {nxt['file']}{kept}", soft_wrap=True)
        console.print(f"next: edit it, then run `attnprep check {nxt['file']}`", soft_wrap=True)
    if note.get("error"):
        warning(f"could not write the next stage: {note['error']}")
    if note.get("complete"):
        say("every stage passed: `attnprep interview --end` shows the scorecard", "bold", console)
    if note.get("time_up"):
        console.print("time is up: the interview is over")
        if not to_stderr:
            interview_scorecard(note["scorecard"])
    else:
        style = "bold red" if note["remaining_s"] < 300 else "bold"
        console.print(Text.assemble("interview: ", (minutes(note["remaining_s"]), style), " left"))


def interview_started(interview: dict[str, Any], first: dict[str, Any]) -> None:
    say(f"interview {interview['track']}: {plural(first['of'], 'stage')}, {plural(interview['minutes'], 'minute')} "
        "on one clock; each stage is written when the one before passes", "bold")
    say(f"interviewer: {first['ask']}", "bold")
    kept = f" (kept your previous file as {Path(first['kept']).name})" if first["kept"] else ""
    out.print(f"stage 1 of {first['of']}: wrote {first['file']}{kept}", soft_wrap=True)
    out.print(f"next: edit it, then run `attnprep check {first['file']}`", soft_wrap=True)
    say("`attnprep interview --end` ends it with a scorecard.")


def interview_scorecard(card: dict[str, Any]) -> None:
    table = Table(title=f"interview scorecard: {card['track']} ({card['title']})", title_justify="left")
    for name in ("stage", "exercise", "passed", "time", "checks", "hints", "failed on the way"):
        table.add_column(name, overflow="fold")
    for s in card["stages"]:
        passed = Text("yes", style="green") if s["passed"] else Text("no" if s["reached"] else "not reached",
                                                                      style="red" if s["reached"] else "dim")
        table.add_row(str(s["stage"]), s["slug"], passed, minutes(s["time_s"]) if s["reached"] else "-",
                      str(s["checks"]), str(s["hints_used"]), ", ".join(s["failed_on_the_way"]) or "-")
    out.print(table)
    verdict = ("within" if card["within_target"] else "over") if card["complete"] else "incomplete against"
    say(f"{card['stages_passed']} of {len(card['stages'])} stages passed; total {minutes(card['total_s'])}, "
        f"{verdict} the {minutes(card['target_s'])} target")
