"""`attnprep new SLUG --pack DIR`: the files of a new exercise, ready to fill in (docs/authoring.md)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from attnprep import catalogue
from attnprep.errors import AttnprepError, UnknownExercise

# Every placeholder text the scaffold writes carries this marker; `attnprep dev check` reports it until replaced.
MARKER = "TODO(attnprep new)"
DIFFICULTIES = ("easy", "medium", "hard")


def function_name(slug: str) -> str:
    name = re.sub(r"\W", "_", slug)
    return name if name.isidentifier() and not name[0].isdigit() else f"fn_{name}"


def _stub(fn: str) -> str:
    return f'''{{% extends "_base.py.j2" %}}
{{% block body %}}

def {fn}(x):
    """{MARKER}: what {fn} computes, in one sentence.

    x: (..., d) float64 array. {MARKER}: every argument with its shape, dtype and meaning.

    Returns {MARKER}: the shape and meaning of the result. Do not modify x.
    """
    raise NotImplementedError
{{% endblock %}}
'''


def _instructions(title: str, fn: str) -> str:
    return f"""# {title}

Write `{fn}(x)`. {MARKER}: what it computes, for whom, and why it matters in an interview.

{MARKER}: the traps, one numbered point each (shapes, axes, masking, numerics), the way
exercises/softmax/instructions.md does it.
"""


def _hints(fn: str) -> str:
    return f'''# One [[hint]] per step, mildest first. `invariants` names the checks a hint is about:
# after a failed check, `attnprep hint` shows first the hint about an invariant that failed.

[[hint]]
invariants = ["matches-reference"]
text = """
{MARKER}: a question that points at the idea of {fn}, not at the code.
"""

[[hint]]
invariants = ["matches-reference"]
text = """
{MARKER}: nearly the code.
"""
'''


def _reference(slug: str, fn: str) -> str:
    return f'''# attnprep: {slug}
"""Reference solution of `{slug}`: the grader compares every candidate with it."""

import numpy as np


def {fn}(x):
    x = np.asarray(x, dtype=np.float64)
    # {MARKER}: the reference solution. `attnprep dev check` fails until it passes every invariant.
    raise NotImplementedError("write the reference solution")
'''


def _grader(slug: str, fn: str) -> str:
    return f'''"""Hidden checks for the `{slug}` exercise (written with attnprep.grading; see docs/authoring.md)."""

import numpy as np

from attnprep import ladders
from attnprep.grading import check_close, invariant, mistake, shape_of

# The functions the learner's file must define; the worker loads exactly these.
FUNCTIONS = ("{fn}",)


@invariant("matches-reference", "matches the reference solution on 1-D to 4-D input")
def matches_reference(cand, ref, rng):
    def judge(rung):  # one rung of the ladder: a shape; a Fail names the smallest rung that fails
        x = ladders.normal(rng, rung.value)
        check_close(cand.{fn}(x), ref.{fn}(x), f"{fn}(x of shape {{shape_of(x)}})")

    ladders.first_failing(ladders.dims(last=7), judge)


# -- known mistakes, recognised by behaviour on these probes --------------------

def probes(rng):
    """(function, args, kwargs) on which each mistake below is told apart from the reference."""
    yield "{fn}", (ladders.normal(rng, (3, 5)),), {{}}


@mistake("example-mistake", "{MARKER}: one sentence on what to change")
def _example_mistake(x):
    # {MARKER}: a deliberately wrong variant of the reference, as a learner would write it.
    return -np.asarray(x, dtype=np.float64)
'''


def create(slug: str, pack: Path, *, title: str | None = None, minutes: int = 15,
           difficulty: str = "medium") -> list[Path]:
    """Write a new exercise's files into the pack (created if need be); never overwrites anything."""
    if not re.fullmatch(catalogue.SLUG_PATTERN, slug):
        raise AttnprepError(f"`{slug}` cannot be a slug", "use lower-case letters, digits, - and _, e.g. `l2norm`")
    if difficulty not in DIFFICULTIES:
        raise AttnprepError(f"unknown difficulty `{difficulty}`", f"choose one of {', '.join(DIFFICULTIES)}")
    pack = pack.expanduser().resolve()
    if pack.exists() and not pack.is_dir():
        raise AttnprepError(f"{pack} is a file, not a pack folder", "choose a folder for --pack")
    catalogue_path = pack / catalogue.PACK_CATALOGUE
    records = catalogue.read_pack_catalogue(pack) if catalogue_path.exists() else []
    if any(r["slug"] == slug for r in records):
        raise AttnprepError(f"{catalogue_path} already has an exercise `{slug}`", "choose another slug")
    try:
        clash = catalogue.get(slug)
    except UnknownExercise:
        clash = None
    if clash is not None and clash.pack != str(pack):
        where = f"pack {clash.pack}" if clash.pack else "the built-in exercises"
        raise AttnprepError(f"`{slug}` is already an exercise of {where}", "choose another slug")
    fn = function_name(slug)
    title = title or slug.replace("-", " ").replace("_", " ").capitalize()
    files = {
        pack / "exercises" / slug / "stub.py.j2": _stub(fn),
        pack / "exercises" / slug / "instructions.md": _instructions(title, fn),
        pack / "exercises" / slug / "hints.toml": _hints(fn),
        pack / "solutions" / f"{slug}.py": _reference(slug, fn),
        pack / "grader" / f"{slug}.py": _grader(slug, fn),
    }
    taken = [p for p in files if p.exists()]
    if taken:
        raise AttnprepError(f"{taken[0]} already exists; not overwriting it", "choose another slug, or remove it")
    records.append({"slug": slug, "title": title, "minutes": minutes, "difficulty": difficulty})
    try:
        for path, text in files.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        (pack / "tests" / "corpus" / slug).mkdir(parents=True, exist_ok=True)  # for solutions with verdicts
        data = json.loads(catalogue_path.read_text(encoding="utf-8")) if catalogue_path.exists() else {}
        data = {"grading_api": data.get("grading_api", _api_version()), **data, "exercises": records}
        catalogue_path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    except OSError as exc:
        raise AttnprepError(f"cannot write into {pack}: {exc.strerror or exc}", "choose a folder you can write to") \
            from None
    return [*files, catalogue_path]


def _api_version() -> int:
    from attnprep.grading import API_VERSION

    return API_VERSION
