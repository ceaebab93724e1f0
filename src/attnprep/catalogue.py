"""The exercise catalogue: one ordered file, one folder of data per exercise."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from attnprep.errors import InternalError, UnknownExercise


@cache
def data_root() -> Path:
    """Where exercises/, solutions/ and grader/ live: inside the wheel, or the checkout."""
    here = Path(__file__).resolve().parent
    for root in (here / "_data", here.parent.parent):
        if (root / "exercises" / "catalogue.toml").is_file():
            return root
    raise InternalError("attnprep's exercise data is missing from this installation")


@dataclass(frozen=True)
class Hint:
    text: str
    invariants: tuple[str, ...] = ()


@dataclass(frozen=True)
class Exercise:
    slug: str
    title: str
    minutes: int
    difficulty: str
    summary: str

    @property
    def folder(self) -> Path:
        return data_root() / "exercises" / self.slug

    @property
    def stub_template(self) -> Path:
        return self.folder / "stub.py.j2"

    @property
    def solution_path(self) -> Path:
        return data_root() / "solutions" / f"{self.slug}.py"

    @property
    def grader_path(self) -> Path:
        return data_root() / "grader" / f"{self.slug}.py"

    @property
    def target_s(self) -> int:
        return self.minutes * 60

    def instructions(self) -> str:
        return (self.folder / "instructions.md").read_text(encoding="utf-8")

    def explanation(self) -> str:
        return (self.folder / "explain.md").read_text(encoding="utf-8")

    def hints(self) -> list[Hint]:
        data = tomllib.loads((self.folder / "hints.toml").read_text(encoding="utf-8"))
        return [Hint(h["text"].strip(), tuple(h.get("invariants", ()))) for h in data["hint"]]


@cache
def exercises() -> tuple[Exercise, ...]:
    """Every exercise, in catalogue order."""
    path = data_root() / "exercises" / "catalogue.toml"
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    return tuple(Exercise(e["slug"], e["title"], int(e["minutes"]), e["difficulty"],
                          e.get("summary", "")) for e in data["exercise"])


def slugs() -> list[str]:
    return [e.slug for e in exercises()]


def get(slug: str) -> Exercise:
    """The exercise named `slug`, or an error that suggests the closest name."""
    for ex in exercises():
        if ex.slug == slug:
            return ex
    raise UnknownExercise(slug, slugs())
