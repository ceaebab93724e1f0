"""The corpus of learner solutions in tests/corpus/SLUG/: their expectations, graded.

The header format and the verdict live in attnprep.corpus (so that `attnprep dev check`
has them in an installed attnprep too); see its docstring.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent.parent / "src"))

from attnprep.corpus import Case, cases_in, parse, verdict  # noqa: E402

CORPUS = Path(__file__).parent / "corpus"
__all__ = ["CORPUS", "Case", "cases", "grade_case", "parse", "verdict"]


def cases() -> list[Case]:
    return cases_in(CORPUS)


def grade_case(case: Case, seed: int = 0, timeout: float = 30.0):
    """The case's report; a PyTorch file (torch_*.py) is skipped where torch is not installed."""
    from attnprep import catalogue, frameworks
    from attnprep.engine import grade

    source = case.path.read_text(encoding="utf-8")
    if frameworks.detect(source) == frameworks.TORCH and not frameworks.installed(frameworks.TORCH):
        import pytest

        pytest.skip(f"{case.id} is a PyTorch solution: needs torch (pip install 'attnprep[torch]')")
    return grade(catalogue.get(case.slug), source, str(case.path), seed=seed, timeout=timeout)


if __name__ == "__main__":  # python tests/corpus.py [SLUG|FILE ...]: a quick dev loop
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
