"""Exercise packs: loading, `attnprep new`, `attnprep dev check`, and a pack written from docs/authoring.md alone."""

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
GUIDE = ROOT / "docs" / "authoring.md"


def attnprep(*args, home, packs=None, cwd=None):
    env = {**os.environ, "ATTNPREP_HOME": str(home), "COLUMNS": "200"}
    env.pop("ATTNPREP_PACKS", None)
    if packs:
        env["ATTNPREP_PACKS"] = os.pathsep.join(str(p) for p in packs)
    proc = subprocess.run([sys.executable, "-m", "attnprep", *args], capture_output=True, text=True, env=env,
                          cwd=cwd, timeout=300)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def guide_files() -> dict[str, str]:
    """The files docs/authoring.md gives in full: a **`mypack/PATH`** line, then a fenced block."""
    text = GUIDE.read_text(encoding="utf-8")
    found = re.findall(r"^\*\*`(mypack/[^`]+)`\*\*\n\n```[a-z]*\n(.*?)^```$", text, re.M | re.S)
    return dict(found)


@pytest.fixture(scope="module")
def guide_pack(tmp_path_factory):
    """The pack a reader of docs/authoring.md ends up with: `attnprep new`, then the files as the guide gives."""
    work = tmp_path_factory.mktemp("author")
    home = work / "home"
    command = re.search(r"^attnprep new (.+)$", GUIDE.read_text(encoding="utf-8"), re.M).group(1)
    command = shlex.split(command)
    proc = attnprep("new", *command, home=home, cwd=work)
    assert proc.returncode == 0, proc.stderr
    for rel, text in guide_files().items():
        path = work / rel
        assert path.parent.is_dir(), f"the guide writes {rel}, in a folder `attnprep new` did not make"
        path.write_text(text, encoding="utf-8")
    return work / "mypack"


def test_the_guide_gives_every_file_of_the_exercise():
    files = guide_files()
    assert {"mypack/exercises/l2norm/stub.py.j2", "mypack/exercises/l2norm/instructions.md",
            "mypack/exercises/l2norm/hints.toml", "mypack/solutions/l2norm.py", "mypack/grader/l2norm.py",
            "mypack/tests/corpus/l2norm/wrong_axis0.py", "mypack/tests/corpus/l2norm/correct_linalg.py"} <= set(files)


def test_a_pack_written_from_the_guide_passes_dev_check(guide_pack, tmp_path):
    proc = attnprep("dev", "check", "--pack", str(guide_pack), home=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "l2norm: ok" in proc.stdout and "2 corpus files" in proc.stdout
    assert "dev check: 1 exercise, 0 problems" in proc.stdout


def test_a_learner_starts_and_checks_the_pack_exercise(guide_pack, tmp_path):
    home = tmp_path / "home"
    listed = attnprep("list", home=home, packs=[guide_pack])
    assert "l2norm" in listed.stdout and "Unit-length vectors" in listed.stdout
    started = attnprep("start", "l2norm", "--dir", str(tmp_path), home=home, packs=[guide_pack])
    assert started.returncode == 0, started.stderr
    stub = tmp_path / "l2norm.py"
    assert stub.read_text().startswith("# attnprep: l2norm\n")
    assert attnprep("check", str(stub), home=home, packs=[guide_pack]).returncode == 1
    stub.write_text("# attnprep: l2norm\nimport numpy as np\n\n\ndef l2_normalize(x, eps=1e-12):\n"
                    "    return x / np.sqrt(np.sum(x * x, axis=-1, keepdims=True))\n")
    wrong = attnprep("check", "--json", home=home, packs=[guide_pack])  # no FILE: the exercise started last
    report = json.loads(wrong.stdout)
    assert wrong.returncode == 1 and report["exercise"] == "l2norm"
    assert [i["id"] for i in report["invariants"] if not i["passed"]] == ["zero-vector"]
    assert [m["id"] for m in report["mistakes"]] == ["no-eps"]
    hint = attnprep("hint", home=home, packs=[guide_pack])
    assert "np.maximum" in hint.stdout  # the hint about the invariant that failed comes first
    shutil.copy(guide_pack / "solutions" / "l2norm.py", stub)
    passed = attnprep("check", str(stub), "--pack", str(guide_pack), home=home)
    assert passed.returncode == 0, passed.stdout
    status = json.loads(attnprep("status", "--json", home=home, packs=[guide_pack]).stdout)
    assert next(e for e in status["exercises"] if e["slug"] == "l2norm")["state"] == "solved"
    shown = attnprep("solution", "l2norm", "--pack", str(guide_pack), home=home)
    assert shown.returncode == 0 and "np.maximum(norm, eps)" in shown.stdout
    shown = attnprep("show", "l2norm", home=home, packs=[guide_pack])
    assert shown.returncode == 0 and "zero-vector" in shown.stdout and "Unit-length vectors" in shown.stdout
    explained = attnprep("explain", "l2norm", home=home, packs=[guide_pack])  # the guide writes no explain.md
    assert explained.returncode == 2 and "no explanation" in explained.stderr
    # Without the pack, the stub's slug is unknown, and the hint says how to load it.
    lost = attnprep("check", str(stub), home=home)
    assert lost.returncode == 2 and "--pack" in lost.stderr and "ATTNPREP_PACKS" in lost.stderr


def test_a_teacher_grades_a_class_on_a_pack_exercise(guide_pack, tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    shutil.copy(guide_pack / "solutions" / "l2norm.py", folder / "ana.py")
    shutil.copy(guide_pack / "tests" / "corpus" / "l2norm" / "wrong_axis0.py", folder / "ben.py")
    proc = attnprep("grade", str(folder), "-e", "l2norm", "--pack", str(guide_pack), "--json",
                    str(tmp_path / "out.json"), home=tmp_path)
    assert proc.returncode == 1
    results = {Path(r["file"]).name: r for r in json.loads((tmp_path / "out.json").read_text())["results"]}
    assert results["ana.py"]["status"] == "pass" and results["ben.py"]["status"] == "fail"
    assert "wrong-axis" in proc.stdout


def test_new_scaffolds_a_pack_that_dev_check_sends_back_to_work(tmp_path):
    pack = tmp_path / "course"
    proc = attnprep("new", "relu-grad", "--pack", str(pack), "--minutes", "5", home=tmp_path)
    assert proc.returncode == 0, proc.stderr
    for rel in ("catalogue.json", "exercises/relu-grad/stub.py.j2", "exercises/relu-grad/instructions.md",
                "exercises/relu-grad/hints.toml", "solutions/relu-grad.py", "grader/relu-grad.py"):
        assert (pack / rel).is_file(), rel
    data = json.loads((pack / "catalogue.json").read_text())
    assert data["grading_api"] == 1 and data["exercises"][0]["slug"] == "relu-grad"
    grader = (pack / "grader" / "relu-grad.py").read_text()
    assert grader.count("@invariant(") == 1 and grader.count("@mistake(") == 1
    check = attnprep("dev", "check", "--pack", str(pack), home=tmp_path)
    assert check.returncode == 1
    lines = [line for line in check.stdout.splitlines() if line.startswith("relu-grad: ")]
    assert any("instructions.md still holds" in line for line in lines)
    assert any("the reference fails `matches-reference`" in line for line in lines)
    # Once the reference is written and the placeholders are gone, it passes.
    ref = pack / "solutions" / "relu-grad.py"
    ref.write_text(ref.read_text().replace('raise NotImplementedError("write the reference solution")',
                                           "return np.maximum(x, 0.0)"))
    for name in ("instructions.md", "hints.toml"):
        path = pack / "exercises" / "relu-grad" / name
        path.write_text(path.read_text().replace("TODO(attnprep new)", "Written"))
    assert attnprep("dev", "check", "--pack", str(pack), home=tmp_path).returncode == 0
    # A second exercise joins the same pack; the first is never overwritten.
    assert attnprep("new", "other", "--pack", str(pack), home=tmp_path).returncode == 0
    assert [e["slug"] for e in json.loads((pack / "catalogue.json").read_text())["exercises"]] == ["relu-grad",
                                                                                                   "other"]
    again = attnprep("new", "relu-grad", "--pack", str(pack), home=tmp_path)
    assert again.returncode == 2 and "already has" in again.stderr
    builtin = attnprep("new", "mha", "--pack", str(pack), home=tmp_path)
    assert builtin.returncode == 2 and "built-in" in builtin.stderr
    assert attnprep("new", "Bad/Slug", "--pack", str(pack), home=tmp_path).returncode == 2


def test_dev_check_reports_each_problem_on_a_line(tmp_path):
    pack = tmp_path / "broken"
    assert attnprep("new", "twice", "--pack", str(pack), home=tmp_path).returncode == 0
    ex = pack / "exercises" / "twice"
    (ex / "instructions.md").write_text("# Twice\n\nWrite `twice(x)`: 2 * x.\n")
    (ex / "hints.toml").write_text('[[hint]]\ninvariants = ["no-such-check"]\ntext = "Multiply."\n')
    (pack / "solutions" / "twice.py").write_text("import numpy as np\n\n\ndef twice(x):\n    return 2 * x\n")
    grader = pack / "grader" / "twice.py"
    grader.write_text(grader.read_text() + '''

@invariant("matches-reference", "a second check under the same id")
def again(cand, ref, rng):
    pass


@invariant("vacuous", "passes without calling anything")
def vacuous(cand, ref, rng):
    return None


@mistake("same-as-reference", "a mistake no probe can tell from the reference")
def _same(x):
    return 2 * np.asarray(x, dtype=np.float64)
''')
    corpus = pack / "tests" / "corpus" / "twice"
    assert corpus.is_dir()  # `new` makes it
    (corpus / "wrong_but_passes.py").write_text("# expect: fail matches-reference\ndef twice(x):\n    return 2 * x\n")
    (corpus / "no_header.py").write_text("def twice(x):\n    return x\n")
    proc = attnprep("dev", "check", "--pack", str(pack), home=tmp_path)
    assert proc.returncode == 1
    out = proc.stdout
    assert "invariant id `matches-reference` is used by 2 checks" in out
    assert "hint 1 names the invariant `no-such-check`" in out
    assert "mistake `same-as-reference` gives the reference's results on every probe" in out
    assert "`vacuous` judges nothing of the reference at seeds 0, 1, 12345" in out
    assert "wrong_but_passes.py: these invariants passed but must fail: ['matches-reference']" in out
    assert "no_header.py: no '# expect: pass'" in out
    assert all(line.startswith(("twice: ", "dev check: ")) for line in out.splitlines())


def test_pack_loading_refuses_clashes_and_bad_packs(tmp_path):
    one, two = tmp_path / "one", tmp_path / "two"
    assert attnprep("new", "shared", "--pack", str(one), home=tmp_path).returncode == 0
    two.mkdir()
    (two / "catalogue.json").write_text(json.dumps({"exercises": [
        {"slug": "shared", "title": "Again", "minutes": 5, "difficulty": "easy"}]}))
    clash = attnprep("list", home=tmp_path, packs=[one, two])
    assert clash.returncode == 2 and "clashes" in clash.stderr and str(one) in clash.stderr
    (two / "catalogue.json").write_text(json.dumps({"exercises": [
        {"slug": "softmax", "title": "Mine", "minutes": 5, "difficulty": "easy"}]}))
    builtin = attnprep("list", "--pack", str(two), home=tmp_path)
    assert builtin.returncode == 2 and "clashes with `softmax` of the built-in exercises" in builtin.stderr
    missing = attnprep("list", home=tmp_path, packs=[tmp_path / "nowhere"])
    assert missing.returncode == 2 and "does not exist" in missing.stderr
    not_a_pack = attnprep("list", "--pack", str(tmp_path), home=tmp_path)
    assert not_a_pack.returncode == 2 and "no catalogue.json" in not_a_pack.stderr
    fine = attnprep("list", home=tmp_path, packs=[one])
    assert fine.returncode == 0 and "shared" in fine.stdout


def test_fast_commands_stay_fast_with_a_pack_loaded(tmp_path):
    pack = tmp_path / "p"
    assert attnprep("new", "fast", "--pack", str(pack), home=tmp_path).returncode == 0
    env = {**os.environ, "ATTNPREP_HOME": str(tmp_path), "ATTNPREP_PACKS": str(pack)}
    for args in (["list"], ["status"], ["list", "--pack", str(pack)]):
        proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "attnprep", *args], capture_output=True,
                              text=True, env=env, timeout=60)
        assert proc.returncode == 0 and "fast" in proc.stdout, proc.stderr[-2000:]
        imported = {line.rsplit("|", 1)[-1].strip().split(".")[0] for line in proc.stderr.splitlines() if "|" in line}
        assert not imported & {"rich", "numpy", "jinja2", "tomllib"}


def test_dev_check_passes_a_built_in_exercise(tmp_path):
    proc = attnprep("dev", "check", "--exercise", "softmax", home=tmp_path)
    assert proc.returncode == 0, proc.stdout
    assert proc.stdout.splitlines()[0].startswith("softmax: ok (reference passes at 3 seeds, stub fails")


def test_a_broken_pack_grader_is_the_packs_bug_not_attnpreps(tmp_path):
    pack = tmp_path / "p"
    assert attnprep("new", "oops", "--pack", str(pack), home=tmp_path).returncode == 0
    grader = pack / "grader" / "oops.py"
    grader.write_text(grader.read_text() + '''

@invariant("buggy", "a check with a bug of its own")
def buggy(cand, ref, rng):
    cand.oops(np.ones(3))
    raise KeyError("no such key")
''')
    (tmp_path / "oops.py").write_text("# attnprep: oops\ndef oops(x):\n    return x\n")
    proc = attnprep("check", str(tmp_path / "oops.py"), "--pack", str(pack), home=tmp_path)
    assert proc.returncode == 3
    assert "bug in the pack" in proc.stderr and "dev check --pack" in proc.stderr
    assert "bug in attnprep" not in proc.stderr
