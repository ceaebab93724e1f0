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
