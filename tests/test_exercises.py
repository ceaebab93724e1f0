"""The dev check: every exercise is complete, its reference passes and its untouched stub fails."""

import ast

import pytest
from corpus import cases

from attnprep import catalogue
from attnprep.engine import grade, grader_module, invariants_of
from attnprep.stubs import render_stub

# The stable invariant ids of ../shared/EXERCISES.md; an exercise may check more, never fewer.
REQUIRED_IDS = {
    "softmax": "shape sum-to-one non-negative matches-reference stable masked-entries axis input-unchanged",
    "causal": "mask shape sum-to-one upper-triangle-zero prefix scale matches-reference stable input-unchanged",
    "mha": "split-layout merge-layout round-trip shape sum-to-one upper-triangle-zero prefix batch-independent "
           "scale single-head matches-reference bad-input input-unchanged",
    "kvcache": "per-token seed-table matches-reference linear batch gqa-ratio bits integer bad-input max-tokens",
    "sampling": "sum-to-one non-negative temperature greedy top-k top-p matches-reference distribution "
                "reproducible stable bad-input input-unchanged",
    "attention": "shape batch-dims cross-attention permutation-equivariant mask scale stable matches-reference "
                 "input-unchanged",
    "rmsnorm": "shape unit-rms scale-invariant zero-input eps layer-norm-moments last-axis matches-reference "
               "input-unchanged",
    "swiglu": "shape position-wise gate stable matches-reference input-unchanged",
    "params": "seed-config tied gqa integer weights-gib bad-input matches-reference",
    "rope": "shape norm-preserving position-zero relative layout bad-input matches-reference input-unchanged",
    "gqa": "shape equals-mha mqa group-mapping prefix bad-input matches-reference input-unchanged",
    "window": "mask row-counts equals-causal window-one sum-to-one blocked-zero prefix bad-input matches-reference "
              "input-unchanged",
    "flash": "ragged-blocks block-size-independent causal stable memory matches-reference input-unchanged",
    "decode": "matches-full cache-shape cache-content first-step batch-independent matches-reference input-unchanged",
    "moe": "shape top-k order gates-sum-to-one distinct balanced-loss imbalance bad-input matches-reference "
           "input-unchanged",
    "block": "shape residual prefix batch-independent matches-reference input-unchanged",
    "xent": "uniform confident stable shift-invariant mean bad-input matches-reference input-unchanged",
}
INTERVIEW = {"softmax", "causal", "mha", "kvcache", "sampling"}
EXERCISES = catalogue.exercises()


@pytest.mark.parametrize("ex", EXERCISES, ids=lambda e: e.slug)
def test_exercise_is_complete(ex):
    for path in (ex.stub_template, ex.folder / "instructions.md", ex.folder / "hints.toml", ex.solution_path,
                 ex.grader_path):
        assert path.is_file(), f"{path} is missing"
    assert len(ex.hints()) >= 3
    ids = [c.invariant_id for c in invariants_of(grader_module(ex))]
    assert len(ids) == len(set(ids)), "duplicate invariant ids"
    missing = set(REQUIRED_IDS[ex.slug].split()) - set(ids)
    assert not missing, f"invariants missing: {sorted(missing)}"
    known = set(ids)
    for h in ex.hints():
        assert set(h.invariants) <= known, f"hint keyed to unknown invariants {set(h.invariants) - known}"


@pytest.mark.parametrize("ex", EXERCISES, ids=lambda e: e.slug)
def test_reference_passes(ex):
    report = grade(ex, ex.solution_path.read_text(), str(ex.solution_path), timeout=60)
    assert report.status == "pass", [(i.id, i.status, i.message) for i in report.invariants if not i.passed]


@pytest.mark.parametrize("ex", EXERCISES, ids=lambda e: e.slug)
def test_untouched_stub_fails_as_not_implemented(ex):
    stub = render_stub(ex)
    assert stub.splitlines()[0] == f"# attnprep: {ex.slug}"
    tree = ast.parse(stub)
    functions = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    assert set(grader_module(ex).FUNCTIONS) <= functions
    for fn in (n for n in tree.body if isinstance(n, ast.FunctionDef)):
        assert ast.get_docstring(fn), f"{fn.name} has no docstring"
    report = grade(ex, stub, f"{ex.slug}.py", timeout=60)
    assert report.status == "fail"
    for inv in report.invariants:
        # from-scratch reads the source: with nothing running it is not judged, never passed
        expected = "not-judged" if inv.id == "from-scratch" else "fail"
        assert inv.status == expected and "not implemented yet" in inv.message, (inv.id, inv.message)


@pytest.mark.parametrize("ex", EXERCISES, ids=lambda e: e.slug)
def test_corpus_is_large_enough(ex):
    mine = [c for c in cases() if c.slug == ex.slug]
    wrong, right = sum(not c.passes for c in mine), sum(c.passes for c in mine)
    need_wrong, need_right = (8, 3) if ex.slug in INTERVIEW else (6, 2)
    assert wrong >= need_wrong and right >= need_right, f"{wrong} wrong, {right} correct"


def test_every_reference_passes_through_the_cli(tmp_path):
    import json
    import os
    import subprocess
    import sys

    env = {**os.environ, "ATTNPREP_HOME": str(tmp_path)}
    for ex in EXERCISES:
        proc = subprocess.run([sys.executable, "-m", "attnprep", "check", str(ex.solution_path), "--json",
                               "--timeout", "30"], capture_output=True, env=env, timeout=120)
        report = json.loads(proc.stdout)
        assert proc.returncode == 0 and report["status"] == "pass", (ex.slug, report)
    listed = subprocess.run([sys.executable, "-m", "attnprep", "list"], capture_output=True, text=True, env=env)
    rows = [line.split()[1] for line in listed.stdout.splitlines() if line.startswith("│ ") and line.split()[1] != "│"]
    assert rows == catalogue.slugs() and len(rows) == 17


def test_solutions_and_corpus_need_only_numpy_and_the_standard_library():
    """PyTorch files (tests/corpus/SLUG/torch_*.py, solutions/torch/) may import torch as well."""
    import sys
    from pathlib import Path

    root = Path(__file__).parent
    files = [*root.glob("corpus/*/*.py"), *[ex.solution_path for ex in EXERCISES],
             *[ex.torch_solution_path for ex in EXERCISES if ex.torch_solution_path.is_file()]]
    for path in files:
        allowed = {"numpy", "torch"} if path.name.startswith("torch_") or path.parent.name == "torch" else {"numpy"}
        tree = ast.parse(path.read_text())
        # An import inside `try: ... except ImportError:` is optional: the file runs without it.
        optional = {id(inner) for node in ast.walk(tree) if isinstance(node, ast.Try)
                    and any(isinstance(h.type, ast.Name) and h.type.id in ("ImportError", "ModuleNotFoundError")
                            for h in node.handlers)
                    for stmt in node.body for inner in ast.walk(stmt)}
        for node in ast.walk(tree):
            if id(node) in optional:
                continue
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                [node.module] if isinstance(node, ast.ImportFrom) and node.module and not node.level else [])
            for name in names:
                top = name.split(".")[0]
                assert top in allowed or top in sys.stdlib_module_names, f"{path} imports {name}"
