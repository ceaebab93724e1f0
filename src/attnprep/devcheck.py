"""`attnprep dev check`: verify exercises the way the project verifies its own.

For each exercise: its files are there (instructions, hints, a target time, the
stub template, the reference and the grader); the grader loads, its invariant
ids are unique and every id a hint names exists; the untouched stub fails
every invariant; the reference passes every invariant at several seeds; each
known mistake is told apart from the reference by a probe; and every corpus
file (ROOT/tests/corpus/SLUG/) gets the verdict its header states. Each
problem is one line `SLUG: what is wrong`.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from attnprep.catalogue import PACK_CATALOGUE, Exercise

SEEDS = (0, 1, 12345)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


def pack_problems(pack: Path) -> list[str]:
    """Problems of the pack as a whole: the grading API it was written for."""
    from attnprep.grading import API_VERSION

    data = json.loads((pack / PACK_CATALOGUE).read_text(encoding="utf-8"))
    wanted = data.get("grading_api", 1)
    if not isinstance(wanted, int) or isinstance(wanted, bool):
        return [f"{pack / PACK_CATALOGUE}: \"grading_api\" must be a whole number, got {wanted!r}"]
    if not data.get("exercises"):
        return [f"{pack / PACK_CATALOGUE} lists no exercise (`attnprep new SLUG --pack {pack}` adds one)"]
    if wanted > API_VERSION:
        return [f"{pack / PACK_CATALOGUE}: written for version {wanted} of attnprep.grading; this attnprep has "
                f"version {API_VERSION} (upgrade attnprep)"]
    return []


def _files(ex: Exercise) -> list[str]:
    from attnprep.scaffold import MARKER

    problems = []
    for path in (ex.stub_template, ex.folder / "instructions.md", ex.folder / "hints.toml", ex.solution_path,
                 ex.grader_path):
        if not path.is_file():
            problems.append(f"{path} is missing")
    if ex.minutes <= 0:
        problems.append(f"the target time is {ex.minutes} minutes; give \"minutes\" in the catalogue")
    instructions = ex.folder / "instructions.md"
    if instructions.is_file():
        text = instructions.read_text(encoding="utf-8")
        if not text.strip():
            problems.append(f"{instructions} is empty")
        elif MARKER in text:
            problems.append(f"{instructions} still holds the scaffold's {MARKER} placeholders")
    if (ex.folder / "hints.toml").is_file():
        try:
            hints = ex.hints()
        except Exception as exc:  # a hand-written TOML file: any error is the author's to fix
            problems.append(f"{ex.folder / 'hints.toml'} cannot be read: {_first_line(exc)}")
        else:
            if not hints:
                problems.append(f"{ex.folder / 'hints.toml'} has no [[hint]]")
            if any(not h.text for h in hints):
                problems.append(f"{ex.folder / 'hints.toml'} has a hint with no text")
            if any(MARKER in h.text for h in hints):
                problems.append(f"{ex.folder / 'hints.toml'} still holds the scaffold's {MARKER} placeholders")
    return problems


def _grader(ex: Exercise, module) -> list[str]:
    from attnprep.diagnosis import _run_local, _same, mistakes_of
    from attnprep.engine import invariant_list, invariants_of, reference_module

    problems = []
    functions = getattr(module, "FUNCTIONS", None)
    if not isinstance(functions, (tuple, list)) or not functions or not all(isinstance(f, str) for f in functions):
        return [f"{ex.grader_path} needs FUNCTIONS, a tuple of the function names the learner writes"]
    checks = invariants_of(module)
    if not checks:
        problems.append(f"{ex.grader_path} has no @invariant check")
    ids = [c.invariant_id for c in checks]
    for dup in sorted({i for i in ids if ids.count(i) > 1}):
        problems.append(f"invariant id `{dup}` is used by {ids.count(dup)} checks")
    # One mistake may have several variants under its id (on different functions, say), so mistake ids may
    # repeat; they must not be taken for invariants, though.
    mistakes = mistakes_of(module)
    for m in mistakes:
        if m.mistake_id in ids:
            problems.append(f"mistake id `{m.mistake_id}` is also an invariant id")
        if m.mistake_fn is not None and m.mistake_fn not in functions:
            problems.append(f"mistake `{m.mistake_id}` is about `{m.mistake_fn}`, which is not in FUNCTIONS")
    known = {i for i, _ in invariant_list(ex)}  # the grader's checks, and rules the engine adds (from-scratch)
    named = {m.mistake_id for m in mistakes}
    try:
        hints = ex.hints()
    except Exception:  # unreadable hints are reported by _files
        hints = []
    for n, hint in enumerate(hints, start=1):
        for name in hint.invariants:
            if name not in known:
                problems.append(f"hint {n} names the invariant `{name}`, which the grader does not check")
        for name in getattr(hint, "mistakes", ()):  # hints may follow the mistakes a report names, too
            if name not in named:
                problems.append(f"hint {n} names the mistake `{name}`, which the grader does not define")
    if mistakes and not hasattr(module, "probes"):
        problems.append("the grader has @mistake variants but no probes(rng) to recognise them by")
    elif mistakes:
        from attnprep.diagnosis import tolerance_of

        with tolerance_of(module):
            problems += _mistakes_told_apart(ex, module, mistakes, reference_module(ex), _run_local, _same)
    return problems


def _mistakes_told_apart(ex, module, mistakes, ref, run_local, same) -> list[str]:
    """Each mistake differs from the reference on at least one probe of its function; else it is never named."""
    import numpy as np

    try:
        probes = list(module.probes(np.random.default_rng(0)))
    except Exception as exc:  # the author's code
        return [f"probes(rng) raised {_first_line(exc)}"]
    if not hasattr(ref, module.FUNCTIONS[0]):
        return []  # the reference is reported as incomplete elsewhere
    problems = []
    for m in mistakes:
        target = m.mistake_fn or module.FUNCTIONS[0]
        if not hasattr(ref, target):
            continue
        mine = [(args, kwargs) for fn, args, kwargs in probes if fn == target]
        if not any(not same(run_local(m, a, k), run_local(getattr(ref, target), a, k)) for a, k in mine):
            problems.append(f"mistake `{m.mistake_id}` gives the reference's results on every probe of `{target}`, "
                            "so it can never be recognised: add a probe that tells them apart")
    return problems


def _stub(ex: Exercise, module) -> tuple[str | None, list[str]]:
    """The rendered stub, and its problems short of grading it."""
    from attnprep.stubs import render_stub

    try:
        stub = render_stub(ex)
    except Exception as exc:  # a jinja2 template of the author's
        return None, [f"{ex.stub_template} does not render: {_first_line(exc)}"]
    problems = []
    if stub.splitlines()[0].strip() != f"# attnprep: {ex.slug}":
        problems.append(f"the stub's first line is not `# attnprep: {ex.slug}` (extend \"_base.py.j2\")")
    try:
        defined = {n.name for n in ast.parse(stub).body if isinstance(n, ast.FunctionDef)}
    except SyntaxError as exc:
        return None, [*problems, f"the rendered stub is not valid Python: {exc.msg} (line {exc.lineno})"]
    missing = [f for f in module.FUNCTIONS if f not in defined]
    if missing:
        problems.append(f"the stub does not define {', '.join(missing)}")
    return stub, problems


def check_exercise(ex: Exercise, *, seeds: tuple[int, ...] = SEEDS, corpus: bool = True, timeout: float = 30.0,
                   jobs: int = 1) -> tuple[list[str], dict[str, int]]:
    """The problems of one exercise, and what was graded (for the summary line)."""
    from attnprep import frameworks
    from attnprep.corpus import BadHeader, parse, verdict
    from attnprep.engine import grade, grader_module, invariants_of
    from attnprep.stubs import render_stub

    problems = _files(ex)
    if not ex.grader_path.is_file() or not ex.solution_path.is_file():
        return problems, {}
    try:
        module = grader_module(ex)
    except Exception as exc:  # the author's grader: any exception at import is a problem to report
        return [*problems, f"{ex.grader_path} does not load: {_first_line(exc)}"], {}
    grader_problems = _grader(ex, module)
    problems += grader_problems
    if any("FUNCTIONS" in p for p in grader_problems):
        return problems, {}
    stub, stub_problems = _stub(ex, module)
    problems += stub_problems
    reference = ex.solution_path.read_text(encoding="utf-8")
    tasks: list[tuple[str, str, str, int, object]] = [("reference", reference, str(ex.solution_path), s, None)
                                                      for s in seeds]
    if stub is not None:
        tasks.append(("stub", stub, f"{ex.slug}.py", 0, None))
    # The PyTorch reference and stub, where torch is installed (without it, their tests cannot run here).
    with_torch = frameworks.installed(frameworks.TORCH)
    if with_torch and ex.torch_solution_path.is_file():
        torch_ref = ex.torch_solution_path.read_text(encoding="utf-8")
        tasks += [("torch-reference", torch_ref, str(ex.torch_solution_path), s, None) for s in seeds]
        try:
            tasks.append(("stub", render_stub(ex, framework=frameworks.TORCH), f"{ex.slug}.py", 0, None))
        except Exception as exc:  # a jinja2 template of the author's
            problems.append(f"the PyTorch stub does not render: {_first_line(exc)}")
    cases = []
    if corpus and ex.corpus_folder.is_dir():
        for path in sorted(ex.corpus_folder.glob("*.py")):
            try:
                case = parse(path, ex.slug)
                source = path.read_text(encoding="utf-8")
            except (BadHeader, OSError, UnicodeDecodeError) as exc:
                problems.append(str(exc))
                continue
            if not with_torch and frameworks.detect(source) == frameworks.TORCH:
                continue  # a PyTorch corpus file: judged where torch is installed
            cases.append(case)
            tasks.append(("corpus", source, str(path), 0, case))

    def run(task):
        kind, source, name, seed, case = task
        try:
            return task, grade(ex, source, name, seed=seed, timeout=timeout)
        except Exception as exc:  # raised in the parent: by the grader's own code or by the reference
            return task, exc

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        results = list(pool.map(run, tasks))
    failing: dict[tuple[str, str, str | None], list[int]] = {}  # the reference's failures, by seed
    for (kind, _, name, seed, case), report in results:
        if isinstance(report, Exception):
            where = f"at seed {seed}" if kind == "reference" else f"on {Path(name).name}"
            problems.append(f"grading the {kind} {where} raised {_first_line(report)} in the grader or the "
                            "reference itself, not in the candidate")
        elif kind in ("reference", "torch-reference") and report.status != "pass":
            label = "the PyTorch reference" if kind == "torch-reference" else "the reference"
            if not report.invariants:
                problems.append(f"{label} does not load ({report.status}): {report.message}")
            for inv in report.invariants:
                if not inv.passed:
                    failing.setdefault((label, inv.id, inv.status, inv.message), []).append(seed)
        elif kind == "stub":
            if not report.invariants:
                problems.append(f"the untouched stub does not load ({report.status}): {report.message}")
            # Only the grader's own checks: a rule read from the source (from-scratch) rightly passes a stub.
            own = {c.invariant_id for c in invariants_of(module)}
            passed = [i.id for i in report.invariants if i.passed and i.id in own]
            if passed:
                problems.append(f"the untouched stub passes {', '.join(passed)}: a check that passes a stub judged "
                                "nothing")
        elif kind == "corpus":
            problem = verdict(case, report)
            if problem:
                problems.append(f"{Path(name).name}: {problem}")
    for (label, inv_id, status, message), at in failing.items():
        seeds_text = f"seed{'s' if len(at) > 1 else ''} {', '.join(map(str, at))}"
        if status == "not-judged":
            problems.append(f"`{inv_id}` judges nothing of {label} at {seeds_text}: a check must call the "
                            f"candidate and compare what it returns ({message})")
        else:
            problems.append(f"{label} fails `{inv_id}` at {seeds_text} ({status}): {message}")
    return list(dict.fromkeys(problems)), {"seeds": len(seeds), "corpus": len(cases)}


def run(exercises: list[Exercise], packs: list[Path], *, corpus: bool = True, timeout: float = 30.0,
        jobs: int = 1, say: Callable[[str], None] = print) -> int:
    """Check every exercise; print a line per problem and one summary line; the number of problems."""
    total = 0
    for pack in packs:
        for line in pack_problems(pack):
            say(f"{pack.name}: {line}")
            total += 1
    for ex in exercises:
        problems, graded = check_exercise(ex, corpus=corpus, timeout=timeout, jobs=jobs)
        for line in problems:
            say(f"{ex.slug}: {line}")
        total += len(problems)
        if not problems:
            extra = f", {graded['corpus']} corpus files as their headers say" if graded.get("corpus") else ""
            say(f"{ex.slug}: ok (reference passes at {graded['seeds']} seeds, stub fails{extra})")
    plural = lambda n, word: f"{n} {word}{'s' if n != 1 else ''}"  # noqa: E731
    say(f"dev check: {plural(len(exercises), 'exercise')}, {plural(total, 'problem')}")
    return total
