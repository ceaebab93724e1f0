"""How many known-wrong corpus files the report names with at least one mistake, per exercise and overall.

    python tests/mistake_rate.py [SLUG ...] [--jobs N] [--json] [--unnamed] [--min PERCENT]

A known-wrong file is a tests/corpus/SLUG/*.py whose header says `# expect: fail ...`. It counts as
named when `attnprep check` would list at least one entry under `mistakes` (the "likely mistake" lines),
whichever mistake that is; `# diagnosis:` headers, which pin the right one, are judged by tests/corpus.py.
--unnamed lists the files no mistake names (the work list for new mistake variants); --min exits 1 when
the overall rate is below PERCENT, so CI can hold a floor.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from corpus import Case, cases  # noqa: E402


def wrong_cases(slugs: Iterable[str] = ()) -> list[Case]:
    """The corpus's known-wrong files, of the given exercises (all when none are given)."""
    wanted = set(slugs)
    return [c for c in cases() if not c.passes and (not wanted or c.slug in wanted)]


def tally(results: Iterable[tuple[str, str, list[str]]]) -> dict:
    """Rates from (slug, case id, mistake ids named) triples: per exercise, overall, and the unnamed files."""
    per: dict[str, dict] = {}
    for slug, case_id, named in results:
        row = per.setdefault(slug, {"exercise": slug, "wrong": 0, "named": 0, "unnamed": []})
        row["wrong"] += 1
        if named:
            row["named"] += 1
        else:
            row["unnamed"].append(case_id)
    rows = [per[s] for s in sorted(per)]
    for row in rows:
        row["rate"] = row["named"] / row["wrong"]
    wrong = sum(r["wrong"] for r in rows)
    named = sum(r["named"] for r in rows)
    return {"version": 1, "wrong": wrong, "named": named, "rate": named / wrong if wrong else None,
            "exercises": rows}


def measure(selected: list[Case], jobs: int, timeout: float = 30.0) -> dict:
    """Grade every selected file (as `attnprep grade` does, `jobs` at a time) and tally the mistakes named."""
    from attnprep import catalogue
    from attnprep.batch import grade_all

    results = []
    for slug in sorted({c.slug for c in selected}):
        mine = [c for c in selected if c.slug == slug]
        reports = grade_all(catalogue.get(slug), [c.path for c in mine], jobs=jobs, timeout=timeout, seed=0)
        results += [(slug, c.id, [m["id"] for m in r.mistakes]) for c, r in zip(mine, reports, strict=True)]
    return tally(results)


def table(summary: dict, unnamed: bool) -> str:
    lines = [f"{'exercise':10} {'wrong':>5} {'named':>5} {'rate':>6}"]
    for row in summary["exercises"]:
        lines.append(f"{row['exercise']:10} {row['wrong']:5d} {row['named']:5d} {row['rate']:6.1%}")
        if unnamed:
            lines += [f"    not named: {case_id}" for case_id in row["unnamed"]]
    rate = "-" if summary["rate"] is None else f"{summary['rate']:.1%}"
    lines.append(f"{'overall':10} {summary['wrong']:5d} {summary['named']:5d} {rate:>6}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("slugs", nargs="*", metavar="SLUG", help="only these exercises (default: all)")
    parser.add_argument("--jobs", "-j", type=int, default=1, help="files graded at once (default 1)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    parser.add_argument("--unnamed", action="store_true", help="list the wrong files no mistake names")
    parser.add_argument("--min", type=float, metavar="PERCENT", help="exit 1 if the overall rate is below this")
    args = parser.parse_args(argv)
    selected = wrong_cases(args.slugs)
    if not selected:
        print(f"error: no known-wrong corpus files for {' '.join(args.slugs) or 'any exercise'}", file=sys.stderr)
        print(f"hint: exercises with a corpus: {' '.join(sorted({c.slug for c in wrong_cases()}))}", file=sys.stderr)
        return 2
    summary = measure(selected, max(1, args.jobs))
    sys.stdout.write(json.dumps(summary, indent=2) + "\n" if args.json else table(summary, args.unnamed))
    if args.min is not None and (summary["rate"] or 0.0) * 100 < args.min:
        print(f"the mistake rate {summary['rate']:.1%} is below the floor of {args.min:g}%", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent.parent / "src"))
    sys.exit(main())
