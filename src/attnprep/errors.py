"""User-facing errors: each carries its exit code and a hint of what to do."""

from __future__ import annotations

from attnprep.exitcodes import ExitCode


class AttnprepError(Exception):
    """An error the user can fix; shown as `error:` and `hint:` lines, never a traceback."""

    exit_code = ExitCode.USAGE
    hint: str | None = None

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        if hint is not None:
            self.hint = hint


class UnknownExercise(AttnprepError):
    def __init__(self, slug: str, known: list[str], pack_note: bool = False) -> None:
        import difflib

        close = difflib.get_close_matches(slug, known, n=1, cutoff=0.4)
        pack = "an exercise from an exercise pack needs `--pack DIR` or the pack's folder in ATTNPREP_PACKS"
        if pack_note:  # the slug comes from a stub's first line: it names a real exercise, most likely a pack's
            hint = pack + (f" (or did you mean `{close[0]}`?)" if close else "")
        else:
            hint = f"did you mean `{close[0]}`?" if close else f"run `attnprep list` to see the exercises; {pack}"
        super().__init__(f"unknown exercise `{slug}`", hint)


class MissingFile(AttnprepError):
    hint = "run `attnprep start SLUG` to create it, or pass the right path"


class RefusedOverwrite(AttnprepError):
    hint = "pass --force to replace it (the old file is kept as a backup), or choose --dir"


class NothingStarted(AttnprepError):
    hint = "start an exercise first: `attnprep start softmax`"


class CannotInferExercise(AttnprepError):
    hint = "pass --exercise SLUG, or keep the stub's first line `# attnprep: SLUG`"


class NeedsConfirmation(AttnprepError):
    hint = "pass --yes to see it anyway"


class StateUnwritable(AttnprepError):
    hint = "set ATTNPREP_HOME to a folder you can write to"


class InternalError(AttnprepError):
    exit_code = ExitCode.INTERNAL
    hint = "this is a bug in attnprep; please report it with the command you ran"
