"""The corpus of learner solutions in tests/corpus/SLUG/: parse their expectations, grade them.

Each file starts with header comments:
    # attnprep: SLUG
    # expect: pass                       (a correct solution in another style)
    # expect: fail ID [ID ...]           (these invariant ids must fail)
    # mistake: what the learner got wrong (wrong solutions) / # style: ... (correct ones)
    # diagnosis: ID [ID ...]             (optional: known mistakes the report must name)
    # must-pass: ID [ID ...]             (optional, wrong solutions: invariants this mistake must not
                                          fail, so the report blames the right thing)
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

CORPUS = Path(__file__).parent / "corpus"


@dataclass(frozen=True)
class Case:
    path: Path
    slug: str
    passes: bool
    must_fail: frozenset[str]
    diagnosis: frozenset[str] = frozenset()
    must_pass: frozenset[str] = frozenset()

    @property
    def id(self) -> str:
        return f"{self.slug}/{self.path.stem}"


def parse(path: Path) -> Case:
    text = path.read_text(encoding="utf-8")
    expect = re.search(r"^# expect: (pass|fail(?: [\w-]+)+)\s*$", text, re.M)
    if not expect:
        raise ValueError(f"{path}: no '# expect:' line")
    words = expect.group(1).split()
    diagnosis = re.search(r"^# diagnosis:((?: [\w-]+)+)\s*$", text, re.M)
    must_pass = re.search(r"^# must-pass:((?: [\w-]+)+)\s*$", text, re.M)
    return Case(path, path.parent.name, words[0] == "pass", frozenset(words[1:]),
                frozenset(diagnosis.group(1).split()) if diagnosis else frozenset(),
                frozenset(must_pass.group(1).split()) if must_pass else frozenset())


def cases() -> list[Case]:
    return [parse(p) for p in sorted(CORPUS.glob("*/*.py"))]


def grade_case(case: Case, seed: int = 0, timeout: float = 30.0):
    from attnprep import catalogue
    from attnprep.engine import grade

    return grade(catalogue.get(case.slug), case.path.read_text(encoding="utf-8"), str(case.path),
                 seed=seed, timeout=timeout)


def verdict(case: Case, report) -> str | None:
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
    return None


if __name__ == "__main__":  # python tests/corpus.py [SLUG|FILE ...]: a quick dev loop
    sys.path.insert(0, str(Path(__file__).parent.parent / "src"))
    wanted = sys.argv[1:]
    bad = 0
    for case in cases():
        if wanted and case.slug not in wanted and str(case.path) not in wanted and case.path.name not in wanted:
            continue
        report = grade_case(case)
        problem = verdict(case, report)
        bad += problem is not None
        print(f"{'ok  ' if problem is None else 'BAD '} {case.id:45} {report.status:7} "
              f"failed={','.join(report.failed_ids) or '-'}"
              + (f" not-judged={','.join(i.id for i in report.invariants if i.status == 'not-judged')}"
                 if any(i.status == "not-judged" for i in report.invariants) else "")
              + (f"\n     {problem}" if problem else ""))
    sys.exit(1 if bad else 0)
