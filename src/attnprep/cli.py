"""The `attnprep` command line: thin typer commands that delegate to one module per concern."""

# No `from __future__ import annotations` here: typer would then eval every string annotation
# with get_type_hints at start-up, which costs `attnprep list` about 7 ms (issue #5).
import functools
import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from attnprep import __version__
from attnprep.errors import AttnprepError, NeedsConfirmation
from attnprep.exitcodes import ExitCode

# Plain help (rich_markup_mode=None) keeps typer from importing its rich help
# renderer, which would cost more than the rest of `attnprep --help` together.
app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False, rich_markup_mode=None,
                  help="Drill the from-scratch attention questions of ML-engineering interviews.",
                  context_settings={"help_option_names": ["-h", "--help"]})


def handled(fn):
    """Turn AttnprepError into `error:`/`hint:` lines and its exit code; anything else into 3."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except (typer.Exit, typer.Abort, KeyboardInterrupt):
            raise
        except AttnprepError as exc:
            from attnprep import render  # rich, imported only when there is something to say

            render.error(str(exc), exc.hint)
            raise typer.Exit(int(exc.exit_code)) from None
        except Exception as exc:  # a bug of ours: say so, with exit code 3
            from attnprep import render

            render.error(f"internal error: {type(exc).__name__}: {exc}",
                         "this is a bug in attnprep; please report it with the command you ran")
            raise typer.Exit(int(ExitCode.INTERNAL)) from None

    return wrapper


def _version(value: bool) -> None:
    if value:
        typer.echo(f"attnprep {__version__}")
        raise typer.Exit()


@app.callback()
def root(version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                               help="Show the version and exit.")] = False) -> None:
    """Drill the from-scratch attention questions of ML-engineering interviews."""


def _progress_rows() -> list[dict]:
    from attnprep import catalogue, state

    data = state.load()
    rows = []
    for ex in catalogue.exercises():
        item = data["exercises"].get(ex.slug) or state.empty_entry()
        kind = "solved" if item["solved"] else "started" if item["started_at"] or item["attempts"] else "new"
        rows.append({"slug": ex.slug, "title": ex.title, "minutes": ex.minutes,
                     "difficulty": ex.difficulty, "state": kind, "attempts": item["attempts"],
                     "hints_used": item["hints_used"], "started_at": item["started_at"],
                     "first_pass_s": item["first_pass_s"], "best_s": item["best_s"],
                     "last_status": item["last_status"]})
    return rows


@app.command("list")
@handled
def list_() -> None:
    """Every exercise with its target time, difficulty and your state."""
    from attnprep import plain

    plain.exercise_table(_progress_rows())


@app.command()
@handled
def show(slug: Annotated[str, typer.Argument(help="Exercise slug, e.g. mha.")]) -> None:
    """The instructions of an exercise."""
    from attnprep import catalogue, render

    ex = catalogue.get(slug)
    render.markdown(ex.instructions())
    from attnprep.engine import invariant_list  # the list comes from the checks themselves

    render.invariant_list(invariant_list(ex))
    render.out.print(f"\ntarget: {ex.minutes} minutes · start with: attnprep start {ex.slug}")


@app.command()
@handled
def explain(slug: Annotated[str, typer.Argument(help="Exercise slug, e.g. mha.")]) -> None:
    """The concept behind an exercise, in about five minutes of reading."""
    from attnprep import catalogue, render

    ex = catalogue.get(slug)
    render.markdown(ex.explanation())


@app.command()
@handled
def start(slug: Annotated[str, typer.Argument(help="Exercise slug, e.g. mha.")],
          dir: Annotated[Path, typer.Option("--dir", help="Folder to write SLUG.py into.")] = Path("."),
          force: Annotated[bool, typer.Option("--force", help="Replace an existing file (keeps a backup).")] = False,
          ) -> None:
    """Write the exercise's stub and start its interview clock."""
    from attnprep import catalogue, render, state, workspace

    ex = catalogue.get(slug)
    path, kept = workspace.write_stub(ex, dir, force)
    state.record_start(ex.slug, path)
    if kept:
        render.err.print(f"kept your previous file as {kept}")
    render.out.print(f"wrote {path}")
    render.out.print(f"clock started: target {ex.minutes} minutes")
    render.out.print(f"next: edit it, then run `attnprep check {path}`")


@app.command()
@handled
def check(file: Annotated[Path | None, typer.Argument(help="Solution file (default: the last started).")] = None,
          exercise: Annotated[str | None, typer.Option("--exercise", "-e", help="Exercise slug.")] = None,
          as_json: Annotated[bool, typer.Option("--json", help="Print one JSON report on stdout.")] = False,
          timeout: Annotated[float, typer.Option(min=0.5, max=3600, help="Seconds for the whole grading.")] = 10.0,
          seed: Annotated[int, typer.Option(min=0, help="Seed of the hidden checks' inputs.")] = 0) -> None:
    """Grade a solution file against the exercise's hidden invariants."""
    import time

    from attnprep import workspace
    from attnprep.runner import Worker, cpu_limit

    path = workspace.file_to_check(file)
    source = workspace.read_source(path)
    ex = workspace.infer_exercise(path, source, exercise)
    started = time.monotonic()
    # The worker boots Python and NumPy while this process imports the judge (NumPy) and rich: start it first.
    worker = Worker(cpu_seconds=cpu_limit(timeout))
    try:
        from attnprep import mock, render, state
        from attnprep.engine import grade

        report = grade(ex, source, str(file) if file else str(path), seed=seed, timeout=timeout, worker=worker,
                       started=started)
    finally:
        worker.kill()  # already done by grade; this covers a failure before grading began
    report.clock = state.clock_of(state.load()["exercises"].get(ex.slug), ex.target_s)
    state.record_check(ex.slug, report.status, report.failed_ids, report.clock)
    running = mock.active()
    in_mock = running is not None and ex.slug in running["slugs"]
    left = mock.remaining_s(running) if in_mock else None
    if as_json:
        payload = report.to_dict()
        if in_mock:
            payload["mock"] = {"remaining_s": round(max(left, 0.0), 1), "slugs": running["slugs"]}
        sys.stdout.write(json.dumps(payload, indent=2) + "\n")
    else:
        render.report(report)
        if not report.passed:
            render.out.print(f"stuck? `attnprep hint {ex.slug}`", style="dim")
        if in_mock:
            render.mock_left(left)
    if in_mock and left <= 0:  # the countdown ran out: the interview is over
        ended, rows = mock.end()
        (render.err if as_json else render.out).print("time is up: the mock interview is over")
        if not as_json:
            render.scorecard(ended, rows)
    raise typer.Exit(int(report.exit_code))


@app.command()
@handled
def hint(slug: Annotated[str | None, typer.Argument(help="Exercise slug (default: the last started).")] = None,
         all_: Annotated[bool, typer.Option("--all", help="Reveal every hint.")] = False) -> None:
    """Reveal the next hint of an exercise; hints used are counted."""
    from attnprep import render, state, workspace

    ex = workspace.slug_or_last(slug)
    hints = ex.hints()
    shown, new = state.reveal_hints(ex.slug, [h.invariants for h in hints], all_)
    for n in (shown + new if all_ else new):
        render.hint(n + 1, len(hints), hints[n].text)
    if not new and not all_:
        render.err.print("every hint is already revealed; `attnprep hint --all` shows them again, "
                         "`attnprep solution` shows the reference")


@app.command()
@handled
def solution(slug: Annotated[str | None, typer.Argument(help="Exercise slug (default: the last started).")] = None,
             yes: Annotated[bool, typer.Option("--yes", "-y", help="Show it without asking.")] = False) -> None:
    """Show the reference solution (asks first if you have not solved the exercise)."""
    from attnprep import render, state, workspace

    ex = workspace.slug_or_last(slug)
    solved = (state.load()["exercises"].get(ex.slug) or {}).get("solved", False)
    if not solved and not yes:
        if not sys.stdin.isatty():
            raise NeedsConfirmation(f"you have not solved `{ex.slug}` yet, and there is no terminal to ask")
        if not typer.confirm(f"You have not solved `{ex.slug}` yet. Show the solution anyway?"):
            raise typer.Exit(1)
    render.code(ex.solution_path.read_text(encoding="utf-8"), f"reference solution: {ex.slug}")


@app.command()
@handled
def status(as_json: Annotated[bool, typer.Option("--json", help="Print JSON on stdout.")] = False) -> None:
    """Your progress: attempts, hints used, time to first pass, best time."""
    from attnprep import plain

    rows = _progress_rows()
    if as_json:
        keys = ("slug", "state", "attempts", "hints_used", "started_at", "first_pass_s", "best_s",
                "last_status")
        payload = {"version": 1, "exercises": [{k: r[k] for k in keys} for r in rows]}
        sys.stdout.write(json.dumps(payload, indent=2) + "\n")
    else:
        plain.status_table(rows)


@app.command()
@handled
def reset(slug: Annotated[str, typer.Argument(help="Exercise slug.")],
          dir: Annotated[Path | None, typer.Option(
              "--dir", help="Folder of SLUG.py (default: where it was started, else here).")] = None) -> None:
    """Write a fresh stub (the old file is kept as a backup) and restart the clock."""
    from attnprep import catalogue, render, state, workspace

    ex = catalogue.get(slug)
    if dir is None:
        recorded = (state.load()["exercises"].get(ex.slug) or {}).get("file")
        dir = Path(recorded).parent if recorded else Path(".")
    path, kept = workspace.write_stub(ex, dir, force=True)
    state.record_start(ex.slug, path)
    if kept:
        render.out.print(f"kept your previous file as {kept}")
    render.out.print(f"wrote a fresh {path}; clock restarted (target {ex.minutes} minutes)")


@app.command()
@handled
def grade(folder: Annotated[Path, typer.Argument(help="Folder of .py submissions.")],
          exercise: Annotated[str, typer.Option("--exercise", "-e", help="Exercise slug.")],
          jobs: Annotated[int | None, typer.Option("--jobs", "-j", min=1, help="Files graded at once "
                                                   "(default: the number of cores).")] = None,
          json_file: Annotated[Path | None, typer.Option("--json", help="Write every report to this file.")] = None,
          csv_file: Annotated[Path | None, typer.Option("--csv", help="Write a summary table to this file.")] = None,
          timeout: Annotated[float, typer.Option(min=0.5, max=3600, help="Seconds per file.")] = 10.0,
          seed: Annotated[int, typer.Option(min=0, help="Seed of the hidden checks' inputs.")] = 0) -> None:
    """Grade every .py file of a folder (a class's submissions), each in its own isolated worker."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from attnprep import batch, catalogue, render

    ex = catalogue.get(exercise)
    files = batch.submissions(folder)
    columns = (TextColumn("grading"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=render.err, transient=True) as progress:
        task = progress.add_task("grade", total=len(files))
        reports = batch.grade_all(ex, files, jobs=jobs or batch.default_jobs(), timeout=timeout, seed=seed,
                                  on_done=lambda r: progress.advance(task))
    render.batch_table(reports)
    if json_file:
        batch.write_json(json_file, ex, reports)
    if csv_file:
        batch.write_csv(csv_file, reports)
    raise typer.Exit(int(ExitCode.OK if all(r.passed for r in reports) else ExitCode.NOT_PASSED))


@app.command()
@handled
def watch(file: Annotated[Path | None, typer.Argument(help="Solution file (default: the last started).")] = None,
          exercise: Annotated[str | None, typer.Option("--exercise", "-e", help="Exercise slug.")] = None,
          timeout: Annotated[float, typer.Option(min=0.5, max=3600, help="Seconds per grading.")] = 10.0) -> None:
    """Re-grade on every save, with a live clock; press h for the next hint, q to quit."""
    from attnprep import watch as watcher
    from attnprep import workspace

    path = workspace.file_to_check(file)
    ex = workspace.infer_exercise(path, workspace.read_source(path), exercise)
    watcher.run(path, ex, timeout)


@app.command()
@handled
def report(html: Annotated[Path | None, typer.Option("--html", help="Write a self-contained HTML page here.")] = None,
           ) -> None:
    """Your progress history: attempts, hints, time to first pass against target, failures."""
    from attnprep import history, render

    if html:
        history.write_html(html)
        render.out.print(f"wrote {html}")
    else:
        render.history_table(history.summary())


@app.command("mock")
@handled
def mock_(count: Annotated[int, typer.Option("--count", "-n", min=1, help="How many exercises.")] = 2,
          minutes: Annotated[int | None, typer.Option("--minutes", "-m", min=1, help="Length of the interview "
                                                      "(default: the exercises' targets added up).")] = None,
          dir: Annotated[Path, typer.Option("--dir", help="Folder for the stubs.")] = Path("."),
          end: Annotated[bool, typer.Option("--end", help="End the running mock and show the scorecard.")] = False,
          as_json: Annotated[bool, typer.Option("--json", help="With --end: the scorecard as JSON.")] = False,
          ) -> None:
    """A mock interview: unsolved exercises, one countdown, a scorecard at the end."""
    from attnprep import mock, render

    if end:
        ended, rows = mock.end()
        if as_json:
            sys.stdout.write(json.dumps({"version": 1, "minutes": ended["minutes"], "started_at": ended["started_at"],
                                         "exercises": rows}, indent=2) + "\n")
        else:
            render.scorecard(ended, rows)
        return
    if mock.active():
        render.warning("a mock interview was still running; it is replaced by this one")
    started, written = mock.start(count, minutes, dir)
    render.mock_started(started, written)


@app.command()
@handled
def demo() -> None:
    """A short tour: grade a known-wrong and a correct solution and show both reports."""
    from attnprep import demo as tour

    tour.run()


def main() -> None:
    """Console-script entry point."""
    app()
