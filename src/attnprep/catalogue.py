"""The exercise catalogue: one ordered file, one folder of data per exercise.

exercises/catalogue.json lists the exercises in the order a learner should take
them: the five interview classics first, then the modern transformer toolkit.
It is JSON, and the records are NamedTuples, because every command reads the
catalogue at start-up and tomllib plus dataclasses would cost `attnprep list`
about 8 ms of a budget of some 20 (issue #5). Hints stay TOML: only `hint` reads them.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import NamedTuple

from attnprep.errors import InternalError, UnknownExercise


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


@cache
def exercises() -> tuple[Exercise, ...]:
    """Every exercise, in catalogue order."""
    return tuple(Exercise(e["slug"], e["title"], int(e["minutes"]), e["difficulty"]) for e in _raw()["exercises"])


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
