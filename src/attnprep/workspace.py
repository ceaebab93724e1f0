"""The learner's files: writing stubs without ever losing work, and finding what to grade."""

from __future__ import annotations

import re
import time
from pathlib import Path

from attnprep import catalogue, state
from attnprep.catalogue import Exercise
from attnprep.errors import (
    AttnprepError,
    CannotInferExercise,
    MissingFile,
    NothingStarted,
    RefusedOverwrite,
    UnknownExercise,
)

_FIRST_LINE = re.compile(r"^#\s*attnprep:\s*([A-Za-z0-9_-]+)\s*$")


def backup(path: Path) -> Path:
    """Copy `path` next to itself under a name that is not taken, and return it."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = path.with_name(f"{path.name}.{stamp}.bak")
    n = 1
    while target.exists():
        target = path.with_name(f"{path.name}.{stamp}-{n}.bak")
        n += 1
    target.write_bytes(path.read_bytes())
    return target


def write_stub(exercise: Exercise, folder: Path, force: bool) -> tuple[Path, Path | None]:
    """Write the exercise's stub into `folder`; keep any existing file as a backup."""
    from attnprep.stubs import render_stub

    path = (folder / f"{exercise.slug}.py").resolve()
    kept = None
    if path.exists() and not force:
        raise RefusedOverwrite(f"{path} already exists; not overwriting it")
    try:
        if path.exists():
            kept = backup(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(render_stub(exercise, path.name), encoding="utf-8")
    except OSError as exc:
        raise AttnprepError(f"cannot write {path}: {exc.strerror or exc}",
                            "choose a folder you can write to with --dir") from None
    return path, kept


def slug_or_last(slug: str | None) -> Exercise:
    """The named exercise, or the one started most recently."""
    if slug:
        return catalogue.get(slug)
    last = state.load().get("last_started")
    if not last:
        raise NothingStarted("no exercise given, and none has been started yet")
    return catalogue.get(last)


def infer_exercise(path: Path, source: str, explicit: str | None) -> Exercise:
    """--exercise, else the stub's first line, else the file name."""
    if explicit:
        return catalogue.get(explicit)
    first = source.lstrip("\ufeff").splitlines()[0] if source.strip() else ""
    match = _FIRST_LINE.match(first)
    if match:
        try:
            return catalogue.get(match.group(1))
        except UnknownExercise as exc:  # a slug a stub wrote: most likely an exercise pack's, not loaded
            raise UnknownExercise(match.group(1), catalogue.slugs(), pack_note=True) from exc
    try:
        return catalogue.get(path.stem)
    except UnknownExercise:
        raise CannotInferExercise(f"cannot tell which exercise {path.name} is for") from None


def file_to_check(file: Path | None) -> Path:
    """FILE as given, or the file of the exercise started most recently."""
    if file is None:
        data = state.load()
        last = data.get("last_started")
        if not last:
            raise NothingStarted("no file given, and no exercise has been started yet")
        recorded = data["exercises"].get(last, {}).get("file")
        if not recorded:
            raise NothingStarted(f"no file is recorded for `{last}`")
        file = Path(recorded)
    if not file.exists():
        raise MissingFile(f"{file} does not exist")
    if not file.is_file():
        raise MissingFile(f"{file} is not a file")
    return file


def read_source(path: Path) -> str:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise MissingFile(f"cannot read {path}: {exc.strerror}") from None
    # Undecodable bytes become U+FFFD, which then fails as a syntax error with a line.
    return raw.decode("utf-8", errors="replace")
