"""The learner's files: writing stubs without ever losing work, and finding what to grade."""

from __future__ import annotations

import contextlib
import os
import re
import time
from collections.abc import Callable, Sequence
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
from attnprep.frameworks import FIRST_LINE

# `# attnprep: SLUG`, or `# attnprep: SLUG torch` for a PyTorch stub.
_FIRST_LINE = FIRST_LINE


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


def write_stub(exercise: Exercise, folder: Path, force: bool, framework: str = "numpy") -> tuple[Path, Path | None]:
    """Write the exercise's stub (NumPy or PyTorch) into `folder`; keep any existing file as a backup."""
    from attnprep.stubs import render_stub

    path = (folder / f"{exercise.slug}.py").resolve()
    kept = None
    if path.exists() and not force:
        raise RefusedOverwrite(f"{path} already exists; not overwriting it")
    try:
        if path.exists():
            kept = backup(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(render_stub(exercise, path.name, framework), encoding="utf-8")
    except OSError as exc:
        raise AttnprepError(f"cannot write {path}: {exc.strerror or exc}",
                            "choose a folder you can write to with --dir") from None
    return path, kept


def _undo_stub(path: Path, kept: Path | None) -> None:
    """Put back what write_stub replaced: the previous file from its backup, or no file at all."""
    with contextlib.suppress(OSError):
        if kept is not None:
            os.replace(kept, path)
        else:
            path.unlink()


def _missing_folders(folder: Path) -> list[Path]:
    """The folders that writing into `folder` would create, deepest first."""
    missing, here = [], folder.resolve()
    while not here.exists() and here != here.parent:
        missing.append(here)
        here = here.parent
    return missing


Record = Callable[[dict, list[tuple[Exercise, Path]]], None]


def start_exercises(exercises: Sequence[Exercise], folder: Path, force: bool,
                    record: Record | None = None, framework: str = "numpy") -> list[tuple[Path, Path | None]]:
    """Write each stub and start its clock, all or nothing.

    The stubs are written while the progress lock is held, and `record`
    (default: start each clock) changes the progress before it is saved. If
    any stub or the progress cannot be written, every stub written so far is
    taken back (a replaced file is restored from its backup), so a failed
    `start` leaves neither a stub without a clock nor a clock without a stub.
    """
    written: list[tuple[Path, Path | None]] = []
    made = _missing_folders(folder)
    try:
        with state.updating() as data:
            for ex in exercises:
                written.append(write_stub(ex, folder, force, framework))
            pairs = [(ex, path) for ex, (path, _) in zip(exercises, written, strict=True)]
            if record is None:
                for ex, path in pairs:
                    state.start_entry(data, ex.slug, path)
            else:
                record(data, pairs)
    except BaseException:
        for path, kept in reversed(written):
            _undo_stub(path, kept)
        for created in made:
            with contextlib.suppress(OSError):
                created.rmdir()
        raise
    return written


def stub_framework(exercise: Exercise, torch: bool) -> str:
    """The framework of the stub `--torch` asks for; NoTorchStub (exit 2) for an exercise without tensors."""
    from attnprep import frameworks

    if not torch:
        return frameworks.NUMPY
    if not frameworks.has_tensors(exercise.slug):
        raise frameworks.NoTorchStub(
            f"`{exercise.slug}` has no PyTorch version: it is arithmetic on whole numbers, with no tensors in it",
            f"run `attnprep start {exercise.slug}` without --torch; the NumPy stub is plain Python")
    return frameworks.TORCH


def framework_of_file(path: Path) -> str:
    """The framework of an existing solution file (NumPy if it cannot be read)."""
    from attnprep import frameworks

    try:
        return frameworks.detect(path.read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return frameworks.NUMPY


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


class SourceDecodeError(Exception):
    """The file's bytes are not text in the encoding Python would read it with: a load error, not a usage error."""

    def __init__(self, message: str, text: str) -> None:
        super().__init__(message)
        self.text = text  # decoded with replacement characters, enough to read the `# attnprep: SLUG` line


def read_source(path: Path, shown_as: str | None = None) -> str:
    """The file's text, decoded exactly as Python's import decodes it (PEP 263 and 3120).

    A UTF-8 byte order mark is accepted and a `# coding:` line is honoured;
    bytes that are not UTF-8 without such a line raise SourceDecodeError with
    the message `python FILE` gives, so a file never passes here that Python
    itself would refuse to run.
    """
    import importlib.util

    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise MissingFile(f"cannot read {path}: {exc.strerror}") from None
    try:
        return importlib.util.decode_source(raw)
    except (SyntaxError, UnicodeDecodeError) as exc:
        raise SourceDecodeError(_decode_message(raw, exc, shown_as or str(path)),
                                raw.decode("utf-8", errors="replace")) from None


def _decode_message(raw: bytes, exc: Exception, name: str) -> str:
    """Python's own words for a file it cannot decode, with the line where the first bad byte is."""
    import codecs
    import io
    import tokenize

    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
    except SyntaxError as bad_cookie:
        if not str(bad_cookie.msg).startswith("invalid or missing encoding declaration"):
            return f"SyntaxError on line 1: {bad_cookie.msg}"  # "unknown encoding: foo", a BOM with another cookie
        encoding = "utf-8"  # no cookie, and the first two lines are not UTF-8
    try:
        codecs.decode(raw, encoding)
        start = 0
    except UnicodeDecodeError as undecodable:
        start = undecodable.start
    except LookupError:
        start = 0
    line = raw[:start].count(b"\n") + 1
    if encoding in ("utf-8", "utf-8-sig") and not _declares_encoding(raw):
        return (f"SyntaxError on line {line}: Non-UTF-8 code starting with '\\x{raw[start]:02x}' in file {name} "
                f"on line {line}, but no encoding declared; see https://peps.python.org/pep-0263/ for details")
    return f"SyntaxError on line {line}: the bytes are not valid {encoding}, the encoding the file declares ({exc})"


def _declares_encoding(raw: bytes) -> bool:
    cookie = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*[-\w.]+")
    return any(cookie.match(line) for line in raw.splitlines()[:2])
