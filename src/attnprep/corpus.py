"""Corpus files: solutions whose header states the verdict they must get, and the check of that verdict.

An exercise's corpus lives in ROOT/tests/corpus/SLUG/*.py, ROOT being the
checkout or an exercise pack. Each file starts with header comments:
    # attnprep: SLUG
    # expect: pass                       (a correct solution in another style)
    # expect: fail ID [ID ...]           (these invariant ids must fail)
    # mistake: what the learner got wrong (wrong solutions) / # style: ... (correct ones)
    # diagnosis: ID [ID ...]             (optional: known mistakes the report must name)
    # not-diagnosis: ID [ID ...]         (optional: known mistakes the report must not name, where a file
                                          could be taken for one it does not make)
    # must-pass: ID [ID ...]             (optional, wrong solutions: invariants this mistake must not
                                          fail, so the report blames the right thing)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_EXPECT = re.compile(r"^# expect: (pass|fail(?: [\w-]+)+)\s*$", re.M)
_DIAGNOSIS = re.compile(r"^# diagnosis:((?: [\w-]+)+)\s*$", re.M)
_NOT_DIAGNOSIS = re.compile(r"^# not-diagnosis:((?: [\w-]+)+)\s*$", re.M)
_MUST_PASS = re.compile(r"^# must-pass:((?: [\w-]+)+)\s*$", re.M)


class BadHeader(ValueError):
    """A corpus file without a valid `# expect:` line."""


@dataclass(frozen=True)
class Case:
    path: Path
    slug: str
    passes: bool
    must_fail: frozenset[str]
    diagnosis: frozenset[str] = frozenset()
    must_pass: frozenset[str] = frozenset()
    not_diagnosis: frozenset[str] = frozenset()

    @property
    def id(self) -> str:
        return f"{self.slug}/{self.path.stem}"


def parse(path: Path, slug: str | None = None) -> Case:
    """The expectations in a corpus file's header; the slug defaults to its folder's name."""
    text = path.read_text(encoding="utf-8")
    expect = _EXPECT.search(text)
    if not expect:
        raise BadHeader(f"{path}: no '# expect: pass' or '# expect: fail ID ...' line")
    words = expect.group(1).split()
    diagnosis = _DIAGNOSIS.search(text)
    must_pass = _MUST_PASS.search(text)
    not_diagnosis = _NOT_DIAGNOSIS.search(text)
    return Case(path, slug or path.parent.name, words[0] == "pass", frozenset(words[1:]),
                frozenset(diagnosis.group(1).split()) if diagnosis else frozenset(),
                frozenset(must_pass.group(1).split()) if must_pass else frozenset(),
                frozenset(not_diagnosis.group(1).split()) if not_diagnosis else frozenset())


def cases_in(corpus: Path) -> list[Case]:
    """Every case of a corpus folder (ROOT/tests/corpus), in path order."""
    return [parse(p) for p in sorted(corpus.glob("*/*.py"))]


def verdict(case: Case, report: Any) -> str | None:
    """None if the report meets the case's expectation, else what is wrong."""
    details = "; ".join(f"{i.id}: {i.status} {i.message or ''}" for i in report.invariants if not i.passed)
    if case.passes:
        if report.status == "pass":
            return None
        return f"correct solution rejected: {report.status} {report.message or ''} {details}"
    if report.status != "fail":
        return f"expected status fail, got {report.status}: {report.message} {details}"
    missing = case.must_fail - set(report.failed_ids)
    unknown = (case.must_fail | case.must_pass) - {i.id for i in report.invariants}
    if unknown:
        return f"expects unknown invariant ids {sorted(unknown)}"
    if missing:
        return f"these invariants passed but must fail: {sorted(missing)}"
    blamed = case.must_pass & set(report.failed_ids)
    if blamed:
        why = "; ".join(f"{i.id}: {i.message}" for i in report.invariants if i.id in blamed)
        return f"these invariants failed but are not what this mistake is about: {why}"
    named = {m["id"] for m in report.mistakes}
    if case.diagnosis - named:
        return f"the report should name the mistakes {sorted(case.diagnosis - named)}, it named {sorted(named)}"
    if case.not_diagnosis & named:
        return f"the report names mistakes this file does not make: {sorted(case.not_diagnosis & named)}"
    return None
