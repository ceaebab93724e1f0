"""The exercise catalogue: the built-in exercises, plus those of any exercise packs loaded.

exercises/catalogue.json lists the exercises in the order a learner should take
them: the five interview classics first, then the modern transformer toolkit.
It is JSON, and the records are NamedTuples, because every command reads the
catalogue at start-up and tomllib plus dataclasses would cost `attnprep list`
about 8 ms of a budget of some 20 (issue #5). Hints stay TOML: only `hint` reads them.

An exercise pack is a folder with the same layout (docs/authoring.md):
DIR/catalogue.json, DIR/exercises/SLUG/, DIR/solutions/SLUG.py, DIR/grader/SLUG.py
and, optionally, DIR/tests/corpus/SLUG/. Packs come from ATTNPREP_PACKS (paths
separated by os.pathsep) and from `--pack DIR`; their exercises follow the
built-in ones. A slug may exist only once.
"""

from __future__ import annotations

import json
import os
import re
from functools import cache
from pathlib import Path
from typing import NamedTuple

from attnprep.errors import AttnprepError, InternalError, UnknownExercise

PACKS_ENV = "ATTNPREP_PACKS"
PACK_CATALOGUE = "catalogue.json"
# A slug names files and folders and follows `# attnprep:` on a stub's first line.
SLUG_PATTERN = r"[a-z0-9][a-z0-9_-]*"


@cache
def data_root() -> Path:
    """Where exercises/, solutions/ and grader/ live: inside the wheel, or the checkout."""
    here = Path(__file__).resolve().parent
    for root in (here / "_data", here.parent.parent):
        if (root / "exercises" / "catalogue.json").is_file():
            return root
    raise InternalError("attnprep's exercise data is missing from this installation")


class Hint(NamedTuple):
    text: str
    invariants: tuple[str, ...] = ()  # the invariants it helps with
    mistakes: tuple[str, ...] = ()  # and the named mistakes


class Exercise(NamedTuple):
    slug: str
    title: str
    minutes: int
    difficulty: str
    pack: str = ""  # the pack's folder; "" for a built-in exercise

    @property
    def root(self) -> Path:
        """The folder holding exercises/, solutions/ and grader/ for this exercise."""
        return Path(self.pack) if self.pack else data_root()

    @property
    def folder(self) -> Path:
        return self.root / "exercises" / self.slug

    @property
    def stub_template(self) -> Path:
        return self.folder / "stub.py.j2"

    @property
    def solution_path(self) -> Path:
        return self.root / "solutions" / f"{self.slug}.py"

    @property
    def torch_solution_path(self) -> Path:
        """The PyTorch reference (graded by `dev check` like any correct solution; the judge uses NumPy's)."""
        return self.root / "solutions" / "torch" / f"{self.slug}.py"

    @property
    def grader_path(self) -> Path:
        return self.root / "grader" / f"{self.slug}.py"

    @property
    def corpus_folder(self) -> Path:
        """Wrong and correct solutions with the verdicts they must get (may not exist)."""
        return self.root / "tests" / "corpus" / self.slug

    @property
    def target_s(self) -> int:
        return self.minutes * 60

    def instructions(self) -> str:
        return (self.folder / "instructions.md").read_text(encoding="utf-8")

    def explanation(self) -> str:
        path = self.folder / "explain.md"
        if not path.is_file():
            raise AttnprepError(f"`{self.slug}` has no explanation ({path} is missing)",
                                f"`attnprep show {self.slug}` shows its instructions")
        return path.read_text(encoding="utf-8")

    def hints(self) -> list[Hint]:
        import tomllib

        data = tomllib.loads((self.folder / "hints.toml").read_text(encoding="utf-8"))
        return [Hint(h["text"].strip(), tuple(h.get("invariants", ())), tuple(h.get("mistakes", ())))
                for h in data["hint"]]


class Stage(NamedTuple):
    slug: str
    ask: str  # what the interviewer says when this stage begins


class Track(NamedTuple):
    """An interview with follow-ups: a chain of exercises under one countdown of `minutes`."""

    name: str
    title: str
    minutes: int
    stages: tuple[Stage, ...]

    @property
    def target_s(self) -> int:
        return self.minutes * 60


@cache
def _raw() -> dict:
    return json.loads((data_root() / "exercises" / "catalogue.json").read_text(encoding="utf-8"))


# Folders given with --pack on this command line, after those of ATTNPREP_PACKS.
_cli_packs: list[Path] = []


def add_packs(folders: list[Path] | None) -> None:
    """Load the packs named by `--pack` too (the catalogue is read again)."""
    for folder in folders or ():
        if folder not in _cli_packs:
            _cli_packs.append(folder)
    exercises.cache_clear()


def pack_folders() -> list[Path]:
    """Every pack folder to load: ATTNPREP_PACKS first, then --pack; each once."""
    named = [Path(p) for p in os.environ.get(PACKS_ENV, "").split(os.pathsep) if p.strip()]
    seen: set[Path] = set()
    folders = []
    for folder in [*named, *_cli_packs]:
        key = folder.expanduser().resolve()
        if key not in seen:
            seen.add(key)
            folders.append(key)
    return folders


class BadPack(AttnprepError):
    hint = "an exercise pack is a folder with catalogue.json, exercises/, solutions/ and grader/ " \
           "(`attnprep new SLUG --pack DIR` makes one)"


def read_pack_catalogue(folder: Path) -> list[dict]:
    """The records of DIR/catalogue.json, checked; BadPack with the reason otherwise."""
    path = folder / PACK_CATALOGUE
    if not folder.is_dir():
        raise BadPack(f"exercise pack {folder} does not exist")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BadPack(f"{folder} is not an exercise pack: it has no {PACK_CATALOGUE}") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise BadPack(f"cannot read {path}: {exc}") from None
    records = data.get("exercises") if isinstance(data, dict) else None
    if not isinstance(records, list):
        raise BadPack(f"{path} has no list of \"exercises\"")
    for i, rec in enumerate(records):
        ok = (isinstance(rec, dict) and isinstance(rec.get("slug"), str) and rec["slug"]
              and isinstance(rec.get("title"), str) and isinstance(rec.get("minutes"), int)
              and not isinstance(rec.get("minutes"), bool) and isinstance(rec.get("difficulty", ""), str))
        if not ok:
            raise BadPack(f"{path}: exercise {i + 1} needs a \"slug\", a \"title\" and whole \"minutes\"")
        if not re.fullmatch(SLUG_PATTERN, rec["slug"]):
            raise BadPack(f"{path}: the slug {rec['slug']!r} is not lower-case letters, digits, - and _")
    return records


def _clash(slug: str, where: str, other: str) -> AttnprepError:
    return AttnprepError(f"exercise `{slug}` of {where} clashes with `{slug}` of {other}",
                         f"rename it in {where}'s {PACK_CATALOGUE} and its files, or load only one of the two")


@cache
def exercises() -> tuple[Exercise, ...]:
    """Every exercise, in catalogue order: the built-in ones, then each pack's."""
    found = [Exercise(e["slug"], e["title"], int(e["minutes"]), e["difficulty"]) for e in _raw()["exercises"]]
    owner = {e.slug: "the built-in exercises" for e in found}
    for folder in pack_folders():
        for rec in read_pack_catalogue(folder):
            where = f"pack {folder}"
            if rec["slug"] in owner:
                raise _clash(rec["slug"], where, owner[rec["slug"]])
            owner[rec["slug"]] = where
            found.append(Exercise(rec["slug"], rec["title"], rec["minutes"], rec.get("difficulty", ""),
                                  str(folder)))
    return tuple(found)


@cache
def tracks() -> tuple[Track, ...]:
    """Every interview track, in catalogue order."""
    return tuple(Track(t["name"], t["title"], int(t["minutes"]), tuple(Stage(s["slug"], s["ask"]) for s in t["stages"]))
                 for t in _raw().get("tracks", []))


def slugs() -> list[str]:
    return [e.slug for e in exercises()]


def get(slug: str) -> Exercise:
    """The exercise named `slug`, or an error that suggests the closest name."""
    for ex in exercises():
        if ex.slug == slug:
            return ex
    raise UnknownExercise(slug, slugs())


def pack_bug(ex: Exercise, exc: BaseException) -> AttnprepError:
    """The error for a pack's grader or reference that raised while grading: the pack's bug, exit code 3."""
    error = AttnprepError(f"the grader of `{ex.slug}` (exercise pack {ex.pack}) raised {type(exc).__name__}: {exc}",
                          f"this is a bug in the pack, not in your file: `attnprep dev check --pack {ex.pack}` "
                          "shows it to the pack's author")
    error.exit_code = InternalError.exit_code
    return error


def of_pack(folder: Path) -> list[Exercise]:
    """The exercises a pack folder adds (the pack must be loaded)."""
    key = str(folder.expanduser().resolve())
    return [e for e in exercises() if e.pack == key]
