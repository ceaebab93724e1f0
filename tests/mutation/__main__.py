"""python -m tests.mutation [SLUG ...]: grade cosmic-ray's mutants of the references, print the score per exercise.

Exit 0 when no mutant is unexplained (or contradicted: killed though the ledger calls it equivalent),
1 otherwise, 2 on a usage error.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

from . import core


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m tests.mutation", description=__doc__.split("\n")[0])
    p.add_argument("slugs", nargs="*", metavar="SLUG", help="exercises to mutate (default: all seventeen)")
    p.add_argument("--sample", action="store_true",
                   help=f"only the fixed CI sample (1 mutant in {core.SAMPLE_EVERY}, chosen by content)")
    p.add_argument("--jobs", type=int, default=2, help="mutants graded at once (1 or 2; default 2)")
    p.add_argument("--timeout", type=float, default=10.0,
                   help="seconds per mutant, as `check --timeout` (default 10); a mutant that hangs is killed")
    p.add_argument("--seed", type=int, default=0, help="the seed each mutant is graded at (default 0)")
    p.add_argument("--probe-seeds", type=int, default=None,
                   help="regrade each survivor at this many further seeds, to tell seed-dependent checks "
                        "(default 3, 0 with --sample)")
    p.add_argument("--operator", default="", metavar="REGEX",
                   help="only the mutants of operators whose name matches REGEX (e.g. NumberReplacer)")
    p.add_argument("--list", action="store_true", help="list the mutants and grade nothing")
    p.add_argument("--stub", action="store_true",
                   help="append every unexplained survivor to its ledger as an empty entry to fill in")
    p.add_argument("--survivors", type=Path, metavar="FILE",
                   help="write the killable survivors, with diffs, as Markdown (tests/mutation/SURVIVORS.md)")
    p.add_argument("--json", type=Path, metavar="FILE", help="write every mutant's result as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    return p


def _table(slugs: list[str], results: list[core.Result], seconds: float) -> str:
    cols = ["mutants", "killed", "survived", "equivalent", "unexplained"]
    contradicted = any(r.outcome == core.CONTRADICTED for r in results)
    if contradicted:
        cols.append("contradicted")
    rows = [["exercise", *cols, "score"]]
    total = {c: 0 for c in cols}
    for slug in [*slugs, "total"]:
        mine = results if slug == "total" else [r for r in results if r.mutant.slug == slug]
        counts = core.tally(mine)
        counts["mutants"] = len(mine)
        if slug != "total":
            for c in cols:
                total[c] += counts[c]
        judged = counts["mutants"] - counts["equivalent"]
        score = f"{100 * counts['killed'] / judged:.1f}%" if judged else "-"
        rows.append([slug, *(str(counts[c]) for c in cols), score])
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    out = []
    for n, row in enumerate(rows):
        if n == len(rows) - 1:
            out.append("  ".join("-" * w for w in widths))
        out.append("  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in
                             enumerate(zip(row, widths, strict=True))))
    out.append(f"score = killed / (mutants - equivalent); {len(results)} mutants graded in {seconds:.0f}s")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    # Mutants make NaN and overflow in the judge's comparisons by the hundred; the verdicts say what matters.
    warnings.simplefilter("ignore", RuntimeWarning)
    try:
        import cosmic_ray  # noqa: F401
    except ImportError:
        print("error: cosmic-ray is not installed\nhint: pip install -e '.[test]'", file=sys.stderr)
        return 2
    from attnprep import catalogue

    known = catalogue.slugs()
    unknown = [s for s in args.slugs if s not in known]
    if unknown:
        print(f"error: unknown exercise {unknown[0]!r}\nhint: one of {', '.join(known)}", file=sys.stderr)
        return 2
    if not 1 <= args.jobs <= 2:
        print("error: --jobs must be 1 or 2\nhint: the machine is shared; 2 is the most", file=sys.stderr)
        return 2
    if args.timeout <= 0:
        print("error: --timeout must be positive\nhint: e.g. --timeout 10", file=sys.stderr)
        return 2
    slugs = args.slugs or known
    probe = args.probe_seeds if args.probe_seeds is not None else (0 if args.sample else 3)

    mutants: list[core.Mutant] = []
    for slug in slugs:
        source = catalogue.get(slug).solution_path.read_text(encoding="utf-8")
        mutants += core.mutants_of(slug, source, sample=args.sample, operator=args.operator)
    if args.list:
        for m in mutants:
            print(m.label)
        print(f"{len(mutants)} mutants", file=sys.stderr)
        return 0

    ledgers = {slug: core.load_ledger(slug) for slug in slugs}
    done = {"n": 0}

    def progress(result: core.Result) -> None:
        done["n"] += 1
        if not args.quiet and result.outcome in (core.UNEXPLAINED, core.CONTRADICTED):
            print(f"  {result.outcome}: {result.mutant.label}", file=sys.stderr)
        if not args.quiet and done["n"] % 50 == 0:
            print(f"  {done['n']}/{len(mutants)} graded", file=sys.stderr)

    started = time.monotonic()
    results = core.run(mutants, jobs=args.jobs, timeout=args.timeout, seed=args.seed, probe_seeds=probe,
                       ledgers=ledgers, on_result=progress)
    seconds = time.monotonic() - started

    print(_table(slugs, results, seconds))
    bad = [r for r in results if r.outcome in (core.UNEXPLAINED, core.CONTRADICTED)]
    for r in bad:
        m = r.mutant
        why = ("killed, though its ledger calls it equivalent "
               f"({', '.join(r.failed) or r.status}): is the grader rejecting a correct solution?"
               if r.outcome == core.CONTRADICTED else
               f"passes `attnprep check` ({r.status}) and the ledger does not explain it")
        print(f"\n{r.outcome}: {m.label}\n  {why}\n" + "\n".join("  " + line for line in m.diff.splitlines()))
    if not args.sample and not args.operator:  # a part of the mutants cannot tell a stale entry
        for slug in slugs:
            for e in core.stale_entries(slug, mutants, ledgers[slug]):
                print(f"note: {slug}.toml: no mutant matches the [[{e.kind}]] entry for {e.mutant!r} "
                      "(the reference changed): remove it", file=sys.stderr)
    fixed = [r for r in results if r.outcome == core.KILLED and r.entry is not None and r.entry.kind == "killable"]
    for r in fixed:
        print(f"note: {r.mutant.label} is killed now ({', '.join(r.failed)}): its [[killable]] entry can go",
              file=sys.stderr)
    if args.stub:
        for slug in slugs:
            added = core.append_stubs(slug, [r.mutant for r in bad if r.mutant.slug == slug
                                             and r.outcome == core.UNEXPLAINED])
            if added:
                print(f"wrote {added} stub(s) to {core.ledger_path(slug)}", file=sys.stderr)
    if args.survivors:
        args.survivors.write_text(core.survivors_markdown(results, slugs), encoding="utf-8")
    if args.json:
        args.json.write_text(json.dumps([r.to_dict() for r in results], indent=1) + "\n", encoding="utf-8")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
