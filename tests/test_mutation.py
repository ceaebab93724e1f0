"""Mutation testing of the graders: mutant identity, the ledgers, and the fixed CI sample graded end to end."""

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("cosmic_ray")

from mutation import core  # noqa: E402 - after the skip: the tool needs cosmic-ray

from attnprep import catalogue  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SOFTMAX = (ROOT / "solutions" / "softmax.py").read_text(encoding="utf-8")


def _command(*args):
    return subprocess.run([sys.executable, "-m", "tests.mutation", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)


def test_every_reference_has_mutation_sites_and_some_in_the_sample():
    for slug in catalogue.slugs():
        sites = core.sites_of(slug, catalogue.get(slug).solution_path.read_text(encoding="utf-8"))
        assert len(sites) >= 20, f"{slug}: only {len(sites)} places to mutate"
        assert any(s.in_sample() for s in sites), f"{slug}: no mutant in the CI sample"


def test_mutants_are_whole_files_with_their_diff():
    mutants = core.mutants_of("softmax", SOFTMAX)
    assert len(mutants) == len(core.sites_of("softmax", SOFTMAX))
    for m in mutants:
        assert m.source != SOFTMAX and m.diff.startswith("--- reference") and m.after
        compile(m.source, "mutant.py", "exec")
    sample = core.mutants_of("softmax", SOFTMAX, sample=True)
    assert {m.key for m in sample} == {m.key for m in mutants if m.sampled}


def test_a_mutants_key_does_not_shift_when_the_reference_gains_code():
    before = {m.key for m in core.mutants_of("softmax", SOFTMAX)}
    grown = SOFTMAX.replace("def softmax(", "def helper(a, b=2):\n    return a - b if a > 0 else a\n\n\n"
                                            "def softmax(", 1)
    after = {m.key for m in core.mutants_of("softmax", grown)}
    assert before <= after
    assert any(key[0] == "helper" for key in after - before)


def test_whitespace_does_not_change_a_key():
    assert core.normalise("    x = a  -   1 ") == "x = a - 1"
    entry = core.Entry("equivalent", "f", "NumberReplacer", "x  =  1", "x = 2", reason="r")
    assert entry.key == ("f", "NumberReplacer", "x = 1", "x = 2")


def test_every_ledger_reads_and_explains_what_it_lists():
    for slug in catalogue.slugs():
        for entry in core.load_ledger(slug):
            assert entry.explains, f"{slug}.toml: an entry for {entry.mutant!r} gives no reason"
            if entry.corpus:
                assert (ROOT / "tests" / "corpus" / slug / entry.corpus).is_file(), entry.corpus


def _mutant(after="z = 2"):
    return core.Mutant("softmax", "NumberReplacer", 0, "softmax", 3, "z = 1", after, source="", diff="")


def test_classification():
    eq = core.Entry("equivalent", "softmax", "NumberReplacer", "z = 1", "z = 2", reason="dead code")
    kill = core.Entry("killable", "softmax", "NumberReplacer", "z = 1", "z = 2", invariant="stable",
                      inputs="rows whose maximum is not first")
    stub = core.Entry("equivalent", "softmax", "NumberReplacer", "z = 1", "z = 2")
    m = _mutant()
    assert core.classify(m, "fail", {}) == (core.KILLED, None)
    assert core.classify(m, "timeout", {}) == (core.KILLED, None)
    assert core.classify(m, "pass", {}) == (core.UNEXPLAINED, None)
    assert core.classify(m, "pass", {m.key: stub})[0] == core.UNEXPLAINED
    assert core.classify(m, "pass", {m.key: eq})[0] == core.EQUIVALENT
    assert core.classify(m, "pass", {m.key: kill})[0] == core.SURVIVED
    # The grader rejects what the ledger calls equivalent: a person must look.
    assert core.classify(m, "fail", {m.key: eq})[0] == core.CONTRADICTED


def test_stubs_are_appended_once_and_read_back(tmp_path):
    path = tmp_path / "softmax.toml"
    assert core.append_stubs("softmax", [_mutant('z = "a\\b"'), _mutant('z = "a\\b"')], path) == 1
    assert core.append_stubs("softmax", [_mutant('z = "a\\b"')], path) == 0
    (entry,) = core.load_ledger("softmax", path)
    assert entry.mutant == 'z = "a\\b"' and not entry.explains


def test_a_mutant_that_hangs_is_killed_by_timeout():
    hang = core.Mutant("softmax", "X", 0, "softmax", 1, "", "", diff="",
                       source=SOFTMAX.replace("    z = np.asarray(z)\n", "    while True:\n        pass\n"))
    (result,) = core.run([hang], jobs=1, timeout=2.0, ledgers={"softmax": []})
    assert result.outcome == core.KILLED and result.status == "timeout"


def test_usage_errors():
    bad = _command("nosuch")
    assert bad.returncode == 2 and "error: unknown exercise" in bad.stderr and "hint:" in bad.stderr
    assert _command("--jobs", "3", "softmax").returncode == 2
    assert _command("--timeout", "0", "softmax").returncode == 2


def test_list_names_every_mutant_of_an_exercise():
    listed = _command("softmax", "--list")
    assert listed.returncode == 0
    lines = listed.stdout.splitlines()
    assert len(lines) == len(core.mutants_of("softmax", SOFTMAX))
    assert all(line.startswith("softmax ") for line in lines)


@pytest.mark.mutation
def test_the_ci_sample_has_no_unexplained_survivor():
    """The fixed sample (1 mutant in SAMPLE_EVERY, chosen by content): every survivor is in a ledger."""
    done = _command("--sample", "--quiet")
    assert "exercise" in done.stdout and "total" in done.stdout, done.stderr
    assert done.returncode == 0, done.stdout + done.stderr


def test_our_operators_make_their_examples():
    from cosmic_ray.mutating import mutate_code
    from mutation.operators import OPERATORS

    for name, cls in OPERATORS.items():
        for example in cls.examples():
            got = mutate_code(example.pre_mutation_code, cls(), example.occurrence)
            assert got == example.post_mutation_code, (name, example)
    # A name being defined is not a call to swap.
    assert mutate_code("def max(a):\n    return a\n", OPERATORS["attnprep/ReplaceNumpyName"](), 0) is None
