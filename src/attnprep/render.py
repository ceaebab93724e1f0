"""Terminal output with rich: results on stdout, messages on stderr."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from attnprep.plain import minutes

out = Console(highlight=False)
err = Console(stderr=True, highlight=False)

STATUS_STYLE = {"pass": "bold green", "fail": "bold red", "error": "bold red",
                 "timeout": "bold yellow", "skipped": "dim", "not-judged": "bold yellow"}
_MARK = {"pass": "✓", "fail": "✗", "error": "!", "timeout": "⏱", "skipped": "-", "not-judged": "·"}


def error(message: str, hint: str | None = None) -> None:
    err.print(Text.assemble(("error", "bold red"), f": {message}"))
    if hint:
        err.print(Text.assemble(("hint", "bold cyan"), f": {hint}"))


def warning(message: str) -> None:
    err.print(Text.assemble(("warning", "bold yellow"), f": {message}"))


def clock_line(clock: dict[str, Any] | None) -> Text:
    if not clock:
        return Text("clock: not started (attnprep start SLUG starts it)", style="dim")
    over = clock["elapsed_s"] > clock["target_s"]
    return Text.assemble("clock: ", (minutes(clock["elapsed_s"]), "bold red" if over else "bold"),
                         f" of a {minutes(clock['target_s'])} target",
                         (" (over time)" if over else "", "red"))


def report(rep) -> None:
    """A check report: one line per invariant, evidence under each failure."""
    title = Text.assemble((rep.status.upper(), STATUS_STYLE.get(rep.status, "bold")),
                          f"  {rep.exercise}  {rep.file}")
    out.print(title)
    if rep.message:
        out.print(Text(f"  {rep.message}", style="red"))
    grid = Table.grid(padding=(0, 1))
    grid.add_column(width=3, justify="right")
    grid.add_column(no_wrap=True)
    grid.add_column(overflow="fold")
    for inv in rep.invariants:
        style = STATUS_STYLE.get(inv.status, "")
        text = Text(inv.description, style="dim" if inv.passed else "")
        if inv.message:
            text.append(f"\n{inv.message}", style=style.replace("bold ", ""))
        grid.add_row(Text(_MARK.get(inv.status, "?"), style=style), Text(inv.id, style="" if inv.passed else "bold"),
                     text)
    if rep.invariants:
        out.print(grid)
    for mistake in rep.mistakes:
        out.print(Text.assemble(("  likely mistake: ", "bold magenta"), f"{mistake['id']}: {mistake['message']}"))
    if rep.output:
        shown = rep.output if len(rep.output) < 600 else rep.output[:600] + " ..."
        out.print(Panel(shown, title="your file printed", border_style="dim", expand=False))
    summary = f"{rep.summary()} of {len(rep.invariants)} invariants" if rep.invariants else "no invariant ran"
    out.print(Text(f"{summary} in {rep.elapsed_s:.2f}s (seed {rep.seed})", style="dim"))
    out.print(clock_line(rep.clock))


def markdown(text: str) -> None:
    from rich.markdown import Markdown  # markdown-it is slow to import: only `show` needs it

    out.print(Markdown(text))


def code(text: str, title: str) -> None:
    from rich.syntax import Syntax  # pygments, likewise

    out.print(Panel(Syntax(text, "python", line_numbers=False, word_wrap=True), title=title,
                    expand=False))


def hint(number: int, total: int, text: str) -> None:
    out.print(Panel(text, title=f"hint {number} of {total}", border_style="cyan", expand=False))


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


def mock_started(mock: dict[str, Any], written: list) -> None:
    out.print(Text(f"mock interview: {len(written)} exercises, {mock['minutes']} minutes on one clock",
                   style="bold"))
    for path, kept in written:
        out.print(f"  wrote {path}" + (f" (kept your previous file as {kept.name})" if kept else ""))
    out.print("`attnprep check FILE` shows the time left; `attnprep mock --end` ends it with a scorecard.")


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
    grid = Table.grid(padding=(0, 2))
    grid.add_column(no_wrap=True, style="bold")
    grid.add_column(overflow="fold")
    for inv_id, description in items:
        grid.add_row(inv_id, description)
    out.print(Text("\nThe invariants `attnprep check` judges, in report order:", style="bold"))
    out.print(grid)


def interview_note(note: dict[str, Any] | None, to_stderr: bool) -> None:
    """What an interview says after a check of its current stage: the follow-up, the time left, or the end."""
    if not note:
        return
    console = err if to_stderr else out
    if "passed" in note:
        console.print(Text(f"interview {note['track']}: stage {note['stage']} of {note['of']} passed in "
                           f"{minutes(note['passed']['time_s'])}", style="bold green"))
    if "next" in note:
        nxt = note["next"]
        console.print(Text.assemble(("interviewer: ", "bold"), nxt["ask"]))
        kept = f" (kept your previous file as {Path(nxt['kept']).name})" if nxt["kept"] else ""
        console.print(f"stage {nxt['stage']} of {nxt['of']}: wrote {nxt['file']}{kept}")
        console.print(f"next: edit it, then run `attnprep check {nxt['file']}`")
    if note.get("error"):
        warning(f"could not write the next stage: {note['error']}")
    if note.get("complete"):
        console.print(Text("every stage passed: `attnprep interview --end` shows the scorecard", style="bold"))
    if note.get("time_up"):
        console.print("time is up: the interview is over")
        if not to_stderr:
            interview_scorecard(note["scorecard"])
    else:
        style = "bold red" if note["remaining_s"] < 300 else "bold"
        console.print(Text.assemble("interview: ", (minutes(note["remaining_s"]), style), " left"))


def interview_started(interview: dict[str, Any], first: dict[str, Any]) -> None:
    out.print(Text(f"interview {interview['track']}: {first['of']} stages, {interview['minutes']} minutes on one "
                   "clock; each stage is written when the one before passes", style="bold"))
    out.print(Text.assemble(("interviewer: ", "bold"), first["ask"]))
    kept = f" (kept your previous file as {Path(first['kept']).name})" if first["kept"] else ""
    out.print(f"stage 1 of {first['of']}: wrote {first['file']}{kept}")
    out.print(f"next: edit it, then run `attnprep check {first['file']}`; `attnprep interview --end` ends it")


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
    out.print(f"{card['stages_passed']} of {len(card['stages'])} stages passed; total {minutes(card['total_s'])}, "
              f"{verdict} the {minutes(card['target_s'])} target")
