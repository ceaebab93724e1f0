"""Mutants of the reference solutions (made by cosmic-ray), graded by attnprep, classified against a ledger.

A mutant is one small edit of solutions/SLUG.py made by one cosmic-ray operator (`-` for `+`, a constant
moved by one, `keepdims=True` made False, ...). attnprep grades it as it grades a learner's file: the
mutant is *killed* when `check` does not pass it. A mutant that passes is explained by the exercise's
ledger, tests/mutation/SLUG.toml, in one of two ways:

    [[equivalent]]   it computes what the reference computes on every input the contract allows
                     (`reason` says why, in one line);
    [[killable]]     it is wrong, the graders do not see it yet: `invariant` names the check that should
                     catch it and `inputs` the class of input that shows it (see SURVIVORS.md).

Entries are keyed by what the mutant *is*, never by its position in cosmic-ray's enumeration (which
shifts whenever the reference gains a line): the function it is in, the operator, the reference's line
and the mutant's line, both with their whitespace collapsed.
"""

from __future__ import annotations

import difflib
import json
import re
import time
import tomllib
import zlib
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent

# The exception name cosmic-ray's ExceptionReplacer writes into an `except` clause. Defined at the end of
# the mutant (outside the diff), so a mutated handler simply never matches, as cosmic-ray intends.
_TESTING_EXCEPTION = "CosmicRayTestingException"

# What the grade of a mutant can be.
KILLED, SURVIVED, EQUIVALENT, UNEXPLAINED, CONTRADICTED = "killed", "survived", "equivalent", "unexplained", \
    "contradicted"
OUTCOMES = (KILLED, SURVIVED, EQUIVALENT, UNEXPLAINED, CONTRADICTED)

# The CI sample: a mutant is in it when the CRC-32 of where it is (function, operator, the reference's
# line) falls in 1 of SAMPLE_EVERY buckets. Keyed by content, so the sample does not move when mutants are
# added elsewhere in the file, and known before the mutant is made.
SAMPLE_EVERY = 12


def normalise(line: str) -> str:
    """A line with its whitespace collapsed: `axis=- 2` and `axis=-  2` are the same mutant."""
    return " ".join(line.split())


@dataclass(frozen=True)
class Site:
    """Where one operator can make one mutant: known before the (slower) mutation is made."""
    slug: str
    operator: str       # cosmic-ray's full operator name, e.g. core/NumberReplacer
    occurrence: int     # cosmic-ray's occurrence index: to make the mutant, never to identify it
    function: str       # the def or class the edit is in, "" at module level
    lineno: int         # 1-based first line of the node the operator edits
    span: str           # the node's lines in the reference, normalised
    sub: int            # which of the node's mutations (NumberReplacer makes two per number)

    def in_sample(self) -> bool:
        text = "\x1f".join((self.slug, self.function, self.operator, self.span, str(self.sub)))
        return zlib.crc32(text.encode()) % SAMPLE_EVERY == 0


@dataclass(frozen=True)
class Mutant:
    slug: str
    operator: str       # cosmic-ray's operator name without the `core/` provider
    occurrence: int
    function: str
    lineno: int         # 1-based line of the edit in the reference (for reading only)
    before: str         # the reference's changed line(s), normalised, joined by "\n"
    after: str          # the mutant's changed line(s), likewise
    source: str = field(repr=False)
    diff: str = field(repr=False)
    sampled: bool = False

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.function, self.operator, self.before, self.after)

    @property
    def label(self) -> str:
        where = f"{self.function}:" if self.function else ""
        return f"{self.slug} {where}{self.lineno} {self.operator}: {self.after}"


def _operators() -> list[tuple[str, object]]:
    """Every cosmic-ray operator that needs no arguments (the others replace variables at random), then ours."""
    import cosmic_ray.plugins

    from .operators import OPERATORS

    ops = []
    for name in cosmic_ray.plugins.operator_names():
        cls = cosmic_ray.plugins.get_operator(name)
        if not cls.arguments():
            ops.append((name, cls))
    if not ops:
        raise RuntimeError("cosmic-ray loaded no mutation operators (is its `core` provider importable?)")
    return ops + list(OPERATORS.items())


def _operator_class(name: str):
    import cosmic_ray.plugins

    from .operators import OPERATORS

    return OPERATORS[name] if name in OPERATORS else cosmic_ray.plugins.get_operator(name)


def _changed(original: list[str], mutated: list[str]) -> tuple[int, list[str], list[str], str]:
    """First changed line (1-based), the removed and added lines, and a zero-context unified diff."""
    matcher = difflib.SequenceMatcher(a=original, b=mutated, autojunk=False)
    first, removed, added = 0, [], []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        first = first or i1 + 1
        removed += original[i1:i2]
        added += mutated[j1:j2]
    diff = "\n".join(difflib.unified_diff(original, mutated, "reference", "mutant", n=0, lineterm=""))
    return first, removed, added, diff


def sites_of(slug: str, source: str) -> list[Site]:
    """Every place cosmic-ray's operators can mutate `source`, in its order: one parse, as `cosmic-ray init`."""
    from cosmic_ray.ast import ast_nodes, get_ast
    from cosmic_ray.ast.ast_query import ASTQuery

    lines = source.splitlines()
    nodes = list(ast_nodes(get_ast(source)))
    found: list[Site] = []
    for name, cls in _operators():
        operator, occurrence = cls(), 0
        for node in nodes:
            for sub, (start, end) in enumerate(operator.mutation_positions(node)):
                try:
                    function = ASTQuery(node).get_definition_name() or ""
                except Exception:  # noqa: BLE001 - a name is for reading only; never lose a mutant over it
                    function = ""
                span = "\n".join(normalise(line) for line in lines[start[0] - 1:end[0]])
                found.append(Site(slug, name, occurrence, function, start[0], span, sub))
                occurrence += 1
    return found


def mutate(site: Site, source: str) -> Mutant | None:
    """The mutant cosmic-ray makes at `site`, or None when the edit changes no line."""
    from cosmic_ray.mutating import mutate_code

    mutated = mutate_code(source, _operator_class(site.operator)(), site.occurrence)
    if mutated is None or mutated == source:
        return None  # e.g. a bare `except:` that ExceptionReplacer leaves as it is
    lineno, removed, added, diff = _changed(source.splitlines(), mutated.splitlines())
    if not removed and not added:
        return None  # only whitespace at the end of the file moved
    return Mutant(slug=site.slug, operator=site.operator.split("/", 1)[-1], occurrence=site.occurrence,
                  function=site.function, lineno=lineno, before="\n".join(map(normalise, removed)),
                  after="\n".join(map(normalise, added)), source=mutated, diff=diff, sampled=site.in_sample())


def mutants_of(slug: str, source: str, *, sample: bool = False, operator: str = "") -> list[Mutant]:
    """Every mutant cosmic-ray makes of `source`, in its order; only the CI sample's with `sample`, only
    those of operators whose name matches the regular expression `operator` if given."""
    sites = sites_of(slug, source)
    if sample:
        sites = [s for s in sites if s.in_sample()]
    if operator:
        sites = [s for s in sites if re.search(operator, s.operator)]
    return [m for m in (mutate(s, source) for s in sites) if m is not None]


def runnable(mutant: Mutant) -> str:
    """The text attnprep grades: the mutant, plus the exception class cosmic-ray's handlers name."""
    if _TESTING_EXCEPTION in mutant.source:
        return mutant.source.rstrip("\n") + f"\n\n\nclass {_TESTING_EXCEPTION}(Exception):\n    pass\n"
    return mutant.source


# -- the ledger ----------------------------------------------------------------------------------------


@dataclass
class Entry:
    kind: str                 # "equivalent" or "killable"
    function: str
    operator: str
    line: str                 # the reference's line(s)
    mutant: str               # the mutant's line(s)
    reason: str = ""          # equivalent: why it computes the same thing
    invariant: str = ""       # killable: the check that should catch it
    inputs: str = ""          # killable: the class of inputs that shows it
    corpus: str = ""          # killable: tests/corpus/SLUG/FILE that pins it, if one was written
    note: str = ""

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.function, self.operator, normalise_block(self.line), normalise_block(self.mutant))

    @property
    def explains(self) -> bool:
        """An entry explains a survivor only once it says why (a stub with empty fields does not)."""
        if self.kind == "equivalent":
            return bool(self.reason.strip())
        return bool(self.invariant.strip() and self.inputs.strip())


def normalise_block(text: str) -> str:
    return "\n".join(normalise(line) for line in text.strip("\n").split("\n"))


def ledger_path(slug: str) -> Path:
    return HERE / f"{slug}.toml"


def load_ledger(slug: str, path: Path | None = None) -> list[Entry]:
    path = path or ledger_path(slug)
    if not path.is_file():
        return []
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    entries = []
    for kind in ("equivalent", "killable"):
        for raw in data.get(kind, []):
            unknown = set(raw) - set(Entry.__dataclass_fields__) - {"kind"}
            if unknown:
                raise ValueError(f"{path}: a [[{kind}]] entry has unknown fields {sorted(unknown)}")
            entries.append(Entry(kind=kind, **{k: str(v) for k, v in raw.items() if k != "kind"}))
    return entries


def _toml_string(text: str) -> str:
    # A JSON string with ASCII escapes is a valid TOML basic string.
    return json.dumps(text, ensure_ascii=True)


def append_stubs(slug: str, survivors: Iterable[Mutant], path: Path | None = None) -> int:
    """Add an empty [[equivalent]] entry per survivor to the ledger, for a person to decide and fill."""
    path = path or ledger_path(slug)
    known = {e.key for e in load_ledger(slug, path)}
    blocks = []
    for m in survivors:
        if m.key in known:
            continue
        known.add(m.key)
        blocks.append("\n".join([
            "[[equivalent]]  # TODO: decide; an empty reason explains nothing",
            f"function = {_toml_string(m.function)}",
            f"operator = {_toml_string(m.operator)}",
            f"line = {_toml_string(m.before)}",
            f"mutant = {_toml_string(m.after)}",
            'reason = ""',
        ]))
    if blocks:
        head = "" if path.is_file() else (f"# Mutants of solutions/{slug}.py that `attnprep check` passes, "
                                          "and why. See tests/mutation/core.py.\n")
        with path.open("a", encoding="utf-8") as handle:
            handle.write(head + "\n" + "\n\n".join(blocks) + "\n")
    return len(blocks)


# -- grading ------------------------------------------------------------------------------------------


@dataclass
class Result:
    mutant: Mutant
    outcome: str
    status: str                      # attnprep's report status: pass, fail, error or timeout
    failed: list[str]                # the invariants that did not pass
    entry: Entry | None = None
    seconds: float = 0.0
    killed_at_seeds: list[int] = field(default_factory=list)   # survivors: other seeds that kill it

    def to_dict(self) -> dict:
        m = self.mutant
        return {"slug": m.slug, "function": m.function, "operator": m.operator, "line": m.before,
                "mutant": m.after, "lineno": m.lineno, "outcome": self.outcome, "status": self.status,
                "failed": self.failed, "seconds": round(self.seconds, 3), "diff": m.diff,
                "killed_at_seeds": self.killed_at_seeds}


def grade_source(slug: str, source: str, *, seed: int, timeout: float) -> tuple[str, list[str]]:
    """attnprep's verdict on one file, in this process (the candidate runs in attnprep's worker)."""
    from attnprep import catalogue
    from attnprep.engine import grade

    report = grade(catalogue.get(slug), source, f"{slug}.py", seed=seed, timeout=timeout)
    return report.status, report.not_passed_ids


def classify(mutant: Mutant, status: str, entries: dict[tuple, Entry]) -> tuple[str, Entry | None]:
    entry = entries.get(mutant.key)
    if status != "pass":
        # A killed mutant the ledger calls equivalent: the grader rejects a correct solution, or the
        # reason is wrong. Either way a person must look.
        if entry is not None and entry.kind == "equivalent" and entry.explains:
            return CONTRADICTED, entry
        return KILLED, entry
    if entry is None or not entry.explains:
        return UNEXPLAINED, entry
    return (EQUIVALENT if entry.kind == "equivalent" else SURVIVED), entry


def run(mutants: list[Mutant], *, jobs: int = 2, timeout: float = 10.0, seed: int = 0,
        probe_seeds: int = 0, ledgers: dict[str, list[Entry]] | None = None,
        on_result: Callable[[Result], None] = lambda r: None) -> list[Result]:
    """Grade every mutant with at most `jobs` (<= 2) graded at once; results in the order of `mutants`."""
    ledgers = ledgers if ledgers is not None else {s: load_ledger(s) for s in {m.slug for m in mutants}}
    keyed = {slug: {e.key: e for e in entries} for slug, entries in ledgers.items()}

    def one(mutant: Mutant) -> Result:
        started = time.monotonic()
        source = runnable(mutant)
        entries = keyed.get(mutant.slug, {})
        try:
            status, failed = grade_source(mutant.slug, source, seed=seed, timeout=timeout)
            outcome, entry = classify(mutant, status, entries)
            if outcome == CONTRADICTED:
                # Graded once more before a person is asked to look: under a heavily loaded test run a worker
                # can fail to start (a load error before any invariant ran), which says nothing of the grader.
                status, failed = grade_source(mutant.slug, source, seed=seed, timeout=timeout)
                outcome, entry = classify(mutant, status, entries)
        except Exception as exc:  # noqa: BLE001 - an attnprep bug on one mutant must not lose the run
            # attnprep itself broke: neither killed nor explained, so a person must look.
            status, failed = "internal", [f"attnprep raised {type(exc).__name__}: {exc}"]
            outcome, entry = UNEXPLAINED, entries.get(mutant.key)
        result = Result(mutant, outcome, status, failed, entry)
        if status == "pass":
            # Would another seed have caught it? Then a check's power depends on its random inputs.
            for other in range(seed + 1, seed + 1 + probe_seeds):
                try:
                    other_status, _ = grade_source(mutant.slug, source, seed=other, timeout=timeout)
                except Exception:  # noqa: BLE001 - only a hint for the report; the verdict is seed 0's
                    continue
                if other_status != "pass":
                    result.killed_at_seeds.append(other)
        result.seconds = time.monotonic() - started
        on_result(result)
        return result

    with ThreadPoolExecutor(max_workers=max(1, min(jobs, 2))) as pool:
        return list(pool.map(one, mutants))


def stale_entries(slug: str, mutants: list[Mutant], entries: list[Entry]) -> list[Entry]:
    """Ledger entries that match no mutant of the current reference (it changed): to be removed."""
    keys = {m.key for m in mutants if m.slug == slug}
    return [e for e in entries if e.key not in keys]


def tally(results: list[Result]) -> dict[str, int]:
    counts = {outcome: 0 for outcome in OUTCOMES}
    for r in results:
        counts[r.outcome] += 1
    return counts


# -- SURVIVORS.md -------------------------------------------------------------------------------------


def survivors_markdown(results: list[Result], slugs: list[str]) -> str:
    """The killable survivors, per exercise: the diff, the invariant that should catch it, on which inputs."""
    lines = [
        "# Surviving mutants the graders should kill",
        "",
        "Written by `python -m tests.mutation --survivors tests/mutation/SURVIVORS.md` from the ledgers",
        "(tests/mutation/SLUG.toml, `[[killable]]` entries) and the run that produced it. Each mutant below",
        "is a wrong solution that `attnprep check` passes at seed 0: the invariant named should catch it, on",
        "the class of inputs named. Equivalent mutants are not listed here; they are in the ledgers with",
        "their reasons.",
        "",
    ]
    by_slug: dict[str, list[Result]] = {}
    for r in results:
        if r.outcome in (SURVIVED, UNEXPLAINED):
            by_slug.setdefault(r.mutant.slug, []).append(r)
    for slug in slugs:
        found = by_slug.get(slug, [])
        lines += [f"## {slug}", ""]
        if not found:
            lines += ["No killable survivor.", ""]
            continue
        for r in found:
            m, e = r.mutant, r.entry
            where = f"`{m.function}`, " if m.function else ""
            lines.append(f"### {where}line {m.lineno}: {m.operator}")
            lines.append("")
            if r.outcome == UNEXPLAINED:
                lines.append("- **unexplained**: not yet in the ledger")
            else:
                lines.append(f"- should fail: `{e.invariant}`")
                lines.append(f"- inputs: {e.inputs}")
                if e.corpus:
                    lines.append(f"- pinned by: tests/corpus/{slug}/{e.corpus}")
                if e.note:
                    lines.append(f"- note: {e.note}")
            if r.killed_at_seeds:
                seeds = ", ".join(map(str, r.killed_at_seeds))
                lines.append(f"- killed at seed {seeds}: the check catches it only on some random inputs")
            lines += ["", "```diff", m.diff, "```", ""]
    return "\n".join(lines).rstrip("\n") + "\n"


_SLUG_RE = re.compile(r"^[a-z][a-z0-9_-]*$")


def valid_slug(slug: str) -> bool:
    return bool(_SLUG_RE.match(slug))
