"""The `attnprep` command line: thin typer commands that delegate to one module per concern."""

# No `from __future__ import annotations` here: typer would then eval every string annotation
# with get_type_hints at start-up, which costs `attnprep list` about 7 ms (issue #5).
import functools
import json
import sys
from pathlib import Path
from typing import Annotated

import typer
from typer.core import TyperGroup

from attnprep import CHECK_TIMEOUT_S, __version__
from attnprep.errors import AttnprepError, NeedsConfirmation, StateUnwritable
from attnprep.exitcodes import ExitCode


class _Commands(TyperGroup):
    """The command list of `--help` with each description whole (click cuts them to the terminal's width)."""

    def format_commands(self, ctx, formatter) -> None:
        rows = [(name, cmd.get_short_help_str(limit=10_000)) for name in self.list_commands(ctx)
                if (cmd := self.get_command(ctx, name)) is not None and not cmd.hidden]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


def _number(text: str, kind: type, what: str, low: float, high: float | None, example: str):
    """Parse an option's value, or say in plain words what it should be."""
    try:
        value = kind(text)
    except (TypeError, ValueError):
        raise typer.BadParameter(f"{text!r} is not {what}; give one like {example}") from None
    if value != value or value < low or (high is not None and value > high):  # NaN compares false
        bounds = f"from {low:g} to {high:g}" if high is not None else f"{low:g} or more"
        raise typer.BadParameter(f"{text} is out of range: give {what} {bounds}, like {example}")
    return value


def _timeout(text: str) -> float:
    return _number(text, float, "a number of seconds", 0.5, 3600, "10 or 2.5")


def _seed(text: str) -> int:
    return _number(text, int, "a whole number", 0, None, "0 or 42")


def _jobs(text: str) -> int:
    return _number(text, int, "a whole number of files", 1, None, "2")


def _count(text: str) -> int:
    return _number(text, int, "a whole number of exercises", 1, None, "2")


def _whole_minutes(text: str) -> int:
    return _number(text, int, "a whole number of minutes", 1, None, "15")


def _minutes(text: str) -> float:
    return _number(text, float, "a number of minutes", 0.05, 24 * 60, "30 or 7.5")


# Plain help (rich_markup_mode=None) keeps typer from importing its rich help
# renderer, which would cost more than the rest of `attnprep --help` together.
app = typer.Typer(cls=_Commands, add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  rich_markup_mode=None,
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


def _sandbox_mode(text: str) -> str:
    if text not in ("auto", "required", "off"):
        raise typer.BadParameter(f"{text!r} is not a sandbox mode; give auto, required or off")
    return text


def _sandbox_option(what: str):
    return typer.Option("--sandbox", parser=_sandbox_mode, metavar="auto|required|off",
                        help=f"Run {what} inside bubblewrap: auto (where it can start, else without it, said once "
                        "on stderr), required (else exit 2) or off.")


def _use_sandbox(mode: str, probe: bool = False) -> None:
    """Set the sandbox mode. `probe`: start bwrap once now, before a live view or a class of files, to learn
    whether it can run here. Without it (one check), the worker's own start finds out: a bwrap that cannot set
    up falls back under auto and exits 2 under required, and the check does not pay a trial run (~30 ms)."""
    from attnprep import sandbox

    sandbox.set_mode(mode)
    sandbox.require(probe)  # --sandbox required with no sandbox possible: exit 2 before anything runs
    if probe:
        sandbox.probe()


# Exercise packs to load beside the built-in exercises (docs/authoring.md); repeatable.
PackOption = Annotated[list[Path] | None, typer.Option(
    "--pack", help="Also load the exercise pack in this folder (repeatable; see also ATTNPREP_PACKS).")]


def _use_packs(folders: list[Path] | None) -> None:
    if folders:
        from attnprep import catalogue

        catalogue.add_packs(folders)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"attnprep {__version__}")
        raise typer.Exit()


@app.callback()
def root(version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                               help="Show the version and exit.")] = False) -> None:
    """Drill the from-scratch attention questions of ML-engineering interviews."""


def _say_unsandboxed() -> None:
    from attnprep import sandbox

    note = sandbox.note_once()
    if note:
        from attnprep import render

        render.warning(note)


def _progress_rows() -> list[dict]:
    from attnprep import catalogue, schedule, state

    data, at = state.load(), state.now()
    rows = []
    for ex in catalogue.exercises():
        item = data["exercises"].get(ex.slug) or state.empty_entry()
        kind = "solved" if item["solved"] else "started" if item["started_at"] or item["attempts"] else "new"
        rows.append({"slug": ex.slug, "title": ex.title, "minutes": ex.minutes,
                     "difficulty": ex.difficulty, "state": kind, "attempts": item["attempts"],
                     "hints_used": item["hints_used"], "started_at": item["started_at"],
                     "first_pass_s": item["first_pass_s"], "best_s": item["best_s"],
                     "last_status": item["last_status"], "due": schedule.due_of(data, ex.slug)})
        rows[-1]["due_when"] = schedule.when(rows[-1]["due"], at)
    return rows


@app.command("list")
@handled
def list_(pack: PackOption = None) -> None:
    """Every exercise with its target time, difficulty and your state."""
    from attnprep import plain

    _use_packs(pack)
    plain.exercise_table(_progress_rows())


@app.command()
@handled
def show(slug: Annotated[str, typer.Argument(help="Exercise slug, e.g. mha.")],
         torch: Annotated[bool, typer.Option("--torch", help="The PyTorch view: what the functions receive and "
                                             "return as tensors.")] = False,
         pack: PackOption = None) -> None:
    """The instructions of an exercise."""
    from attnprep import catalogue, render, workspace

    _use_packs(pack)
    ex = catalogue.get(slug)
    framework = workspace.stub_framework(ex, torch)
    render.markdown(ex.instructions())
    if framework == "torch":
        from attnprep import torchview

        render.markdown(torchview.notes(ex))
    from attnprep.engine import invariant_list  # the list comes from the checks themselves

    render.invariant_list(invariant_list(ex))
    flag = " --torch" if framework == "torch" else ""
    render.out.print(f"\ntarget: {ex.minutes} minutes · start with: attnprep start {ex.slug}{flag}", soft_wrap=True)


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
          torch: Annotated[bool, typer.Option("--torch", help="Write a PyTorch stub (tensors in, tensors out).")]
          = False,
          pack: PackOption = None) -> None:
    """Write the exercise's stub and start its interview clock."""
    from attnprep import catalogue, render, workspace

    _use_packs(pack)
    ex = catalogue.get(slug)
    framework = workspace.stub_framework(ex, torch)
    [(path, kept)] = workspace.start_exercises([ex], dir, force, framework=framework)  # all or nothing
    if kept:
        render.err.print(f"kept your previous file as {kept}", soft_wrap=True)
    render.out.print(f"wrote {path}", soft_wrap=True)
    render.out.print(f"clock started: target {ex.minutes} minutes", soft_wrap=True)
    render.out.print(f"next: edit it, then run `attnprep check {path}`", soft_wrap=True)


@app.command()
@handled
def check(file: Annotated[Path | None, typer.Argument(help="Solution file (default: the last started).")] = None,
          exercise: Annotated[str | None, typer.Option("--exercise", "-e", help="Exercise slug.")] = None,
          as_json: Annotated[bool, typer.Option("--json", help="Print one JSON report on stdout "
                                                "(short for --format json).")] = False,
          format: Annotated[str | None, typer.Option(
              "--format", "-f", metavar="FORMAT", help="text (default), json, exercism (results.json v3), github "
              "(workflow commands) or classroom (GitHub Classroom autograding result).")] = None,
          timeout: Annotated[float, typer.Option(parser=_timeout, metavar="SECONDS",
                                                 help="Seconds for the whole grading (0.5 to 3600).")] = \
              CHECK_TIMEOUT_S,
          seed: Annotated[int, typer.Option(parser=_seed, metavar="N",
                                            help="Seed of the hidden checks' inputs.")] = 0,
          sandbox: Annotated[str, _sandbox_option("the worker")] = "auto",
          pack: PackOption = None) -> None:
    """Grade a solution file against the exercise's hidden invariants."""
    import time

    from attnprep import frameworks, workspace
    from attnprep.runner import Worker, cpu_limit, take_early

    output = _check_format(format, as_json)
    _use_packs(pack)
    path = workspace.file_to_check(file)
    shown = str(file) if file else str(path)
    try:
        source, undecodable = workspace.read_source(path, shown), None
    except workspace.SourceDecodeError as exc:  # Python would refuse the file: a load error, graded as one
        source, undecodable = exc.text, exc
    ex = workspace.infer_exercise(path, source, exercise)
    framework = frameworks.detect(source)
    frameworks.require(framework, shown)  # a PyTorch file without torch installed: exit 1, with the command
    _use_sandbox(sandbox)
    started = time.monotonic()
    # The worker boots Python and NumPy (and torch, for a PyTorch file) while this process imports the judge
    # (NumPy) and rich: start it first.
    worker = None
    if undecodable is None:  # the worker the entry point started, if it is the kind this file needs
        worker = take_early(cpu_limit(timeout), framework) or Worker(cpu_seconds=cpu_limit(timeout),
                                                                      framework=framework)
    # Imported before the file is loaded (while the worker boots; see engine.grade): without the sandbox the file
    # could rewrite an installed module that attnprep would import only after it ran.
    after_grading = ("attnprep.textreport", "attnprep.schedule", "attnprep.state", "attnprep.interview",
                     "attnprep.mock")
    maybe_after = ("attnprep.render",)  # rich: a mock's countdown, an interview's note, what the file printed
    try:
        if worker is not None:
            from attnprep.engine import grade

            report = grade(ex, source, shown, seed=seed, timeout=timeout, worker=worker, started=started,
                           also_import=after_grading, rarely_import=maybe_after)
        else:
            from attnprep.report import Report

            report = Report(exercise=ex.slug, file=shown, status="error", message=str(undecodable), seed=seed)
    except Exception as exc:
        if ex.pack:  # an exercise pack's grader or reference raised: the pack's bug, not attnprep's
            from attnprep.catalogue import pack_bug

            raise pack_bug(ex, exc) from exc
        raise
    finally:
        if worker is not None:
            worker.kill()  # already done by grade; this covers a failure before grading began
    from attnprep import interview, mock, schedule, state, textreport

    _say_unsandboxed()
    report.clock = state.clock_of(state.load()["exercises"].get(ex.slug), ex.target_s)
    saved = state.save_check(ex.slug, report, path)
    schedule.note_check(ex.slug, report)
    follow_up = interview.after_check(ex.slug, report)  # a passed stage writes the next one
    running = mock.active()
    in_mock = running is not None and ex.slug in running["slugs"]
    left = mock.remaining_s(running) if in_mock else None
    if output == "json":
        payload = report.to_dict()
        if in_mock:
            payload["mock"] = {"remaining_s": round(max(left, 0.0), 1), "slugs": running["slugs"]}
        if follow_up:
            payload["interview"] = {k: v for k, v in follow_up.items() if k != "scorecard"}
        sys.stdout.write(json.dumps(payload, indent=2) + "\n")
    elif output == "text":
        textreport.report(report, clock_started_now=saved is True)  # without rich, whose import is slow
        textreport.next_step(report, ex.slug, timeout, shown)
        if in_mock:
            from attnprep import render

            render.mock_left(left)
    else:
        _write_format(output, report, ex)
    if follow_up:
        from attnprep import render

        render.interview_note(follow_up, to_stderr=output != "text")
    if in_mock and left <= 0:  # the countdown ran out: the interview is over
        from attnprep import render

        try:
            ended, rows = mock.end()
        except StateUnwritable:
            ended = None  # save_check has already said that progress is not being saved
        if ended is not None:
            (render.out if output == "text" else render.err).print("time is up: the mock interview is over",
                                                                    soft_wrap=True)
            if output == "text":
                render.scorecard(ended, rows)
    raise typer.Exit(int(report.exit_code))


def _check_format(format: str | None, as_json: bool) -> str:
    """The report format `check` prints: --format, with --json its short form for json."""
    from attnprep.errors import AttnprepError
    from attnprep.formats import FORMATS

    if format is not None and format not in FORMATS:
        raise AttnprepError(f"unknown report format `{format}`", f"choose one of: {', '.join(FORMATS)}")
    if as_json and format not in (None, "json"):
        raise AttnprepError(f"--json asks for JSON and --format for {format}", "pass only one of them")
    return "json" if as_json else (format or "text")


def _write_format(shown: str, report, ex) -> None:
    from attnprep import formats

    if shown == "exercism":
        sys.stdout.write(formats.dumps(formats.exercism(report)))
    elif shown == "classroom":
        from attnprep.engine import invariant_list

        count = len(invariant_list(ex))
        sys.stdout.write(formats.dumps(formats.classroom(report, invariant_count=count)))
    else:
        sys.stdout.write("".join(line + "\n" for line in formats.github(report)))


@app.command()
@handled
def hint(slug: Annotated[str | None, typer.Argument(help="Exercise slug (default: the last started).")] = None,
         all_: Annotated[bool, typer.Option("--all", help="Reveal every hint.")] = False,
         pack: PackOption = None) -> None:
    """Reveal the next hint of an exercise; hints used are counted."""
    from attnprep import render, schedule, state, workspace

    _use_packs(pack)
    ex = workspace.slug_or_last(slug)
    hints = ex.hints()
    shown, new = state.reveal_hints(ex.slug, hints, all_)
    schedule.note_hints(ex.slug, len(new))
    for n in (shown + new if all_ else new):
        render.hint(n + 1, len(hints), hints[n].text)
    if not new and not all_:
        render.say("every hint is already revealed; `attnprep hint --all` shows them again, "
                   "`attnprep solution` shows the reference", console=render.err)


@app.command()
@handled
def solution(slug: Annotated[str | None, typer.Argument(help="Exercise slug (default: the last started).")] = None,
             yes: Annotated[bool, typer.Option("--yes", "-y", help="Show it without asking.")] = False,
             torch: Annotated[bool, typer.Option("--torch", help="Show the PyTorch reference solution.")] = False,
             pack: PackOption = None) -> None:
    """Show the reference solution (asks first if you have not solved the exercise)."""
    from attnprep import render, schedule, state, workspace

    _use_packs(pack)
    ex = workspace.slug_or_last(slug)
    framework = workspace.stub_framework(ex, torch)
    shown_path = ex.torch_solution_path if framework == "torch" else ex.solution_path
    if framework == "torch" and not shown_path.is_file():
        from attnprep.errors import AttnprepError

        raise AttnprepError(f"`{ex.slug}` has no PyTorch reference solution",
                            f"`attnprep solution {ex.slug}` shows the NumPy one")
    solved = (state.load()["exercises"].get(ex.slug) or {}).get("solved", False)
    if not solved and not yes:
        if not sys.stdin.isatty():
            raise NeedsConfirmation(f"you have not solved `{ex.slug}` yet, and there is no terminal to ask")
        if not typer.confirm(f"You have not solved `{ex.slug}` yet. Show the solution anyway?"):
            raise typer.Exit(1)
    title = f"reference solution: {ex.slug}" + (" (PyTorch)" if framework == "torch" else "")
    render.code(shown_path.read_text(encoding="utf-8"), title)
    schedule.note_reveal(ex.slug)  # before a pass, seeing the answer rates the exercise "again"


@app.command()
@handled
def status(as_json: Annotated[bool, typer.Option("--json", help="Print JSON on stdout.")] = False) -> None:
    """Your progress: attempts, hints used, time to first pass, best time."""
    from attnprep import plain

    rows = _progress_rows()
    if as_json:
        keys = ("slug", "state", "attempts", "hints_used", "started_at", "first_pass_s", "best_s",
                "last_status", "due")
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
    # A PyTorch file gets a fresh PyTorch stub.
    framework = workspace.framework_of_file(dir / f"{ex.slug}.py")
    [(path, kept)] = workspace.start_exercises([ex], dir, force=True, framework=framework)
    if kept:
        render.out.print(f"kept your previous file as {kept}", soft_wrap=True)
    render.out.print(f"wrote a fresh {path}; clock restarted (target {ex.minutes} minutes)", soft_wrap=True)


@app.command()
@handled
def grade(paths: Annotated[list[Path], typer.Argument(
              help="The folder of .py submissions; with --merge, the JSON files of the shards.",
              metavar="FOLDER | SHARD.json...", show_default=False)],
          exercise: Annotated[str | None, typer.Option("--exercise", "-e", help="Exercise slug.")] = None,
          jobs: Annotated[int | None, typer.Option("--jobs", "-j", parser=_jobs, metavar="N",
                                                   help="Files graded at once "
                                                   "(default: the number of cores).")] = None,
          json_file: Annotated[Path | None, typer.Option("--json", help="Write every report to this file.")] = None,
          csv_file: Annotated[Path | None, typer.Option("--csv", help="Write a summary table to this file.")] = None,
          junit_file: Annotated[Path | None, typer.Option("--junit", help="Write JUnit XML to this file: a test "
                                                          "suite per file, a test case per invariant.")] = None,
          timeout: Annotated[float, typer.Option(parser=_timeout, metavar="SECONDS",
                                                 help="Seconds per file (0.5 to 3600).")] = 10.0,
          seed: Annotated[int, typer.Option(parser=_seed, metavar="N",
                                            help="Seed of the hidden checks' inputs.")] = 0,
          sandbox: Annotated[str, _sandbox_option("every worker")] = "required",
          shard: Annotated[str | None, typer.Option("--shard", metavar="K/N", help="Grade only shard K of N: a "
                                                    "fixed 1/N of the files, by a hash of each file's name.")] = None,
          merge: Annotated[bool, typer.Option("--merge", help="Combine the JSON that `grade --shard K/N --json` "
                                              "wrote on each machine into one report.")] = False,
          pack: PackOption = None) -> None:
    """Grade every .py file of a folder (a class's submissions), each in its own isolated worker."""
    from attnprep import batch

    _use_packs(pack)
    if merge:
        result = _merge_shards(paths, exercise, shard)
    else:
        result = _grade_folder(paths, exercise, jobs, timeout, seed, shard, sandbox)
    batch.print_table(result)
    if json_file:
        batch.write_json(json_file, result)
    if csv_file:
        batch.write_csv(csv_file, result.reports)
    if junit_file:
        batch.write_junit(junit_file, result)
    raise typer.Exit(int(ExitCode.OK if result.passed else ExitCode.NOT_PASSED))


def _merge_shards(paths: list[Path], exercise: str | None, shard: str | None):
    from attnprep import batch
    from attnprep.errors import AttnprepError

    if shard:
        raise AttnprepError("--merge combines shards; it grades nothing, so --shard does not apply",
                            "attnprep grade --merge shard-1.json shard-2.json ...")
    merged = batch.merge([(p, batch.load(p)) for p in paths])
    if exercise and exercise != merged.exercise:
        raise AttnprepError(f"these results are for `{merged.exercise}`, not `{exercise}`",
                            "leave out --exercise with --merge, or pass the right one")
    return merged


def _grade_folder(paths: list[Path], exercise: str | None, jobs: int | None, timeout: float, seed: int,
                  shard: str | None, sandbox: str):
    from attnprep import batch, catalogue, render
    from attnprep.errors import AttnprepError

    if len(paths) != 1:
        raise AttnprepError(f"grade takes one folder, got {len(paths)} paths",
                            "attnprep grade FOLDER -e SLUG; to combine shards, attnprep grade --merge A.json B.json")
    if exercise is None:
        raise AttnprepError("grade needs the exercise the submissions are for",
                            f"attnprep grade {paths[0]} --exercise SLUG (`attnprep list` shows the slugs)")
    ex = catalogue.get(exercise)
    files = batch.submissions(paths[0], ex.slug)
    where = None
    if shard:
        k, n = batch.parse_shard(shard)
        where = {"index": k, "count": n, "files_in_folder": len(files)}
        files = [f for f in files if batch.shard_of(f.name, n) == k]
        render.err.print(f"shard {k}/{n}: {len(files)} of the {where['files_in_folder']} files")
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    _use_sandbox(sandbox, probe=sandbox == "required")  # a class fails fast, before its first file
    columns = (TextColumn("grading"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=render.err, transient=True) as progress:
        task = progress.add_task("grade", total=len(files))
        reports = batch.grade_all(ex, files, jobs=jobs or batch.default_jobs(), timeout=timeout, seed=seed,
                                  on_done=lambda r: progress.advance(task))
    _say_unsandboxed()
    return batch.Batch(ex.slug, seed, timeout, reports, where)


@app.command()
@handled
def new(slug: Annotated[str, typer.Argument(help="Slug of the new exercise, e.g. l2norm.")],
        pack: Annotated[Path, typer.Option("--pack", help="The pack folder to add it to (created if need be).")],
        title: Annotated[str | None, typer.Option(help="Its title (default: from the slug).")] = None,
        minutes: Annotated[int, typer.Option(parser=_whole_minutes, metavar="M",
                                             help="Its target time in minutes.")] = 15,
        difficulty: Annotated[str, typer.Option(help="easy, medium or hard.")] = "medium") -> None:
    """Scaffold a new exercise in an exercise pack: stub, instructions, hints, reference and grader."""
    from attnprep import render, scaffold

    _use_packs([pack] if (pack / "catalogue.json").is_file() else None)
    written = scaffold.create(slug, pack, title=title, minutes=minutes, difficulty=difficulty)
    for path in written:
        render.out.print(f"wrote {path}")
    render.out.print(f"next: fill in every {scaffold.MARKER} (docs/authoring.md walks through it), then "
                     f"`attnprep dev check --pack {pack}`")


dev_app = typer.Typer(no_args_is_help=True, help="Tools for exercise authors.")
app.add_typer(dev_app, name="dev")


@dev_app.command("check")
@handled
def dev_check(pack: PackOption = None,
              exercise: Annotated[str | None, typer.Option("--exercise", "-e", help="Check only this one.")] = None,
              corpus: Annotated[bool, typer.Option(help="Grade the corpus files (tests/corpus/SLUG/) too.")] = True,
              jobs: Annotated[int | None, typer.Option("--jobs", "-j", parser=_jobs, metavar="N",
                                                       help="Gradings at once (default: the number of cores).")] = None,
              timeout: Annotated[float, typer.Option(parser=_timeout, metavar="SECONDS",
                                                     help="Seconds per grading (0.5 to 3600).")] = 30.0,
              ) -> None:
    """Verify exercises as the project verifies its own: a pack's with --pack, else the built-in ones."""
    from attnprep import batch, catalogue, devcheck

    _use_packs(pack)
    folders = [p.expanduser().resolve() for p in pack or ()]
    chosen = [e for f in folders for e in catalogue.of_pack(f)] if folders else \
        [e for e in catalogue.exercises() if not e.pack]
    if exercise:
        chosen = [e for e in chosen if e.slug == exercise] or [catalogue.get(exercise)]
    problems = devcheck.run(chosen, folders, corpus=corpus, timeout=timeout, jobs=jobs or batch.default_jobs())
    raise typer.Exit(int(ExitCode.NOT_PASSED if problems else ExitCode.OK))


@app.command()
@handled
def watch(file: Annotated[Path | None, typer.Argument(help="Solution file (default: the last started).")] = None,
          exercise: Annotated[str | None, typer.Option("--exercise", "-e", help="Exercise slug.")] = None,
          timeout: Annotated[float, typer.Option(parser=_timeout, metavar="SECONDS",
                                                 help="Seconds per grading (0.5 to 3600).")] = 10.0,
          sandbox: Annotated[str, _sandbox_option("the worker")] = "auto") -> None:
    """Re-grade on every save, with a live clock; press h for the next hint, q to quit."""
    from attnprep import watch as watcher
    from attnprep import workspace

    path = workspace.file_to_check(file)
    try:
        source = workspace.read_source(path)
    except workspace.SourceDecodeError as exc:  # the watch shows it as a load error
        source = exc.text
    ex = workspace.infer_exercise(path, source, exercise)
    _use_sandbox(sandbox, probe=True)
    _say_unsandboxed()
    watcher.run(path, ex, timeout)


@app.command()
@handled
def report(html: Annotated[Path | None, typer.Option("--html", help="Write a self-contained HTML page here.")] = None,
           ) -> None:
    """Your progress history: attempts, hints, time to first pass against target, failures."""
    from attnprep import history, render

    if html:
        history.write_html(html)
        render.out.print(f"wrote {html}", soft_wrap=True)
    else:
        render.history_table(history.summary())


@app.command("mock")
@handled
def mock_(count: Annotated[int, typer.Option("--count", "-n", parser=_count, metavar="N",
                                             help="How many exercises.")] = 2,
          minutes: Annotated[float | None, typer.Option("--minutes", "-m", parser=_minutes, metavar="M",
                                                        help="Length of the interview in minutes, fractions "
                                                        "allowed (default: the exercises' targets added up)."
                                                        )] = None,
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
    render.mock_started(started, written, asked=count)


@app.command("next")
@handled
def next_(as_json: Annotated[bool, typer.Option("--json", help="Print JSON on stdout.")] = False) -> None:
    """What to practise now, and why: the due exercise you most need, else a new one."""
    from attnprep import schedule

    schedule.print_next(as_json)


@app.command()
@handled
def review(as_json: Annotated[bool, typer.Option("--json", help="Print JSON on stdout.")] = False) -> None:
    """Every exercise with its next review date (spaced repetition, FSRS)."""
    from attnprep import schedule

    schedule.print_review(as_json)


@app.command("interview")
@handled
def interview_(track: Annotated[str | None, typer.Argument(help="Track to start (see --list).")] = None,
               dir: Annotated[Path, typer.Option("--dir", help="Folder for the stages' files.")] = Path("."),
               list_: Annotated[bool, typer.Option("--list", help="List the tracks.")] = False,
               end: Annotated[bool, typer.Option("--end", help="End the running interview with a scorecard.")] = False,
               as_json: Annotated[bool, typer.Option("--json", help="With --list or --end: JSON on stdout.")] = False,
               ) -> None:
    """An interview with follow-ups: a track of exercises, one countdown, each stage after the last passes."""
    from attnprep import interview

    interview.command(track, dir, show_list=list_, finish=end, as_json=as_json)


@app.command()
@handled
def demo() -> None:
    """A short tour: grade a known-wrong and a correct solution and show both reports."""
    from attnprep import demo as tour

    tour.run()


def main() -> None:
    """Console-script entry point."""
    import os

    from attnprep import ONE_BLAS_THREAD

    os.environ.update(ONE_BLAS_THREAD)  # before anything imports NumPy
    try:
        app()
    except SystemExit as exc:
        code = _exit_code(exc)
    else:
        code = 0
    finally:
        if "attnprep.runner" in sys.modules:  # a worker the entry point started for a check that never ran
            sys.modules["attnprep.runner"].drop_early()
    # Every file is written and closed, every worker and judge ended: the interpreter's own teardown (freeing
    # NumPy's, rich's and typer's modules one by one) would only add 30 ms to every command. No atexit handler
    # of ours needs to run.
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (`attnprep list | head`): nothing more to say
            pass
    os._exit(code)


def _exit_code(exc: SystemExit) -> int:
    """The status SystemExit would end the process with: None is 0, a message is printed and is 1."""
    if exc.code is None:
        return 0
    if isinstance(exc.code, int):
        return exc.code
    print(exc.code, file=sys.stderr)
    return 1
