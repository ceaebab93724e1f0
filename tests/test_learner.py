"""The learner's experience end to end, through the installed `attnprep` command: files, progress, text,
hints, words and options."""

import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from attnprep import catalogue
from attnprep.diagnosis import mistakes_of
from attnprep.engine import grader_module

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus"
ATTNPREP = str(Path(sys.executable).with_name("attnprep"))


@pytest.fixture
def cli(tmp_path):
    """Run the installed command in tmp_path with its own ATTNPREP_HOME; extra env on request."""
    home = tmp_path / "home"

    def run(*args, env=None, cwd=None):
        full = {**os.environ, "ATTNPREP_HOME": str(home), **(env or {})}
        for key in ("COLUMNS", "LINES", "FORCE_COLOR"):
            if key not in (env or {}):
                full.pop(key, None)
        return subprocess.run([ATTNPREP, *args], capture_output=True, text=True, env=full, cwd=cwd or tmp_path,
                              timeout=120)

    run.home = home
    return run


def solution(slug):
    return catalogue.get(slug).solution_path.read_text()


def status(cli, slug):
    return next(e for e in json.loads(cli("status", "--json").stdout)["exercises"] if e["slug"] == slug)


# ---- files are read as Python reads them --------------------------------------------------------------------

def test_a_utf8_bom_is_read_as_python_reads_it(cli, tmp_path):
    (tmp_path / "softmax.py").write_bytes(b"\xef\xbb\xbf" + solution("softmax").encode())
    result = cli("check", "softmax.py")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "PASS" in result.stdout and "U+FEFF" not in result.stdout


def test_latin1_without_a_coding_line_is_refused_as_python_refuses_it(cli, tmp_path):
    body = solution("softmax").replace("import numpy as np", "import numpy as np\n# café au lait", 1)
    (tmp_path / "softmax.py").write_bytes(body.encode("latin-1"))
    result = cli("check", "softmax.py", "--json")
    assert result.returncode == 1
    report = json.loads(result.stdout)
    python = subprocess.run([sys.executable, "softmax.py"], capture_output=True, text=True, cwd=tmp_path)
    said = python.stderr.strip().splitlines()[-1].removeprefix("SyntaxError: ")
    line = re.search(r"on line (\d+)", said).group(1)
    assert report["status"] == "error" and report["invariants"] == []
    assert report["message"] == f"SyntaxError on line {line}: " + said.replace(str(tmp_path / "softmax.py"),
                                                                                 "softmax.py")
    # With the coding line Python honours, the same bytes are a correct solution.
    (tmp_path / "softmax.py").write_bytes(b"# -*- coding: latin-1 -*-\n" + body.encode("latin-1"))
    assert cli("check", "softmax.py", "--exercise", "softmax").returncode == 0


# ---- progress: all or nothing, never in the way of a verdict -----------------------------------------------

def test_start_is_all_or_nothing_when_progress_cannot_be_written(cli, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    bad = {"ATTNPREP_HOME": str(blocker / "home")}
    refused = cli("start", "softmax", env=bad)
    assert refused.returncode == 2 and "cannot save progress" in refused.stderr and "hint:" in refused.stderr
    assert not (tmp_path / "softmax.py").exists()
    # The progress folder exists but its file cannot be replaced: the stub is taken back after writing it.
    cli.home.mkdir()
    (cli.home / "progress.json").mkdir()
    (tmp_path / "softmax.py").write_text("# my work\n")
    forced = cli("start", "softmax", "--force")
    assert forced.returncode == 2 and "Traceback" not in forced.stderr
    assert (tmp_path / "softmax.py").read_text() == "# my work\n"  # restored from its backup...
    assert list(tmp_path.glob("softmax.py.*.bak")) == []  # ...which is not left behind
    (cli.home / "progress.json").rmdir()
    assert cli("start", "softmax", "--force").returncode == 0  # and once progress can be saved, start works
    assert status(cli, "softmax")["state"] == "started"


def test_check_grades_and_warns_once_when_progress_cannot_be_saved(cli, tmp_path):
    (tmp_path / "softmax.py").write_text(solution("softmax"))
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    result = cli("check", "softmax.py", "--json", env={"ATTNPREP_HOME": str(blocker / "home")})
    assert result.returncode == 0
    assert json.loads(result.stdout)["status"] == "pass"
    assert result.stderr.count("warning:") == 1 and "progress was not saved" in result.stderr
    (tmp_path / "softmax.py").write_text("# attnprep: softmax\ndef softmax(z, axis=-1):\n    return z\n")
    failed = cli("check", "softmax.py", env={"ATTNPREP_HOME": str(blocker / "home")})
    assert failed.returncode == 1 and "FAIL" in failed.stdout and failed.stderr.count("warning:") == 1


def test_a_check_before_start_starts_the_clock_untimed(cli, tmp_path):
    (tmp_path / "softmax.py").write_text(solution("softmax"))
    first = cli("check", "softmax.py")
    assert first.returncode == 0 and "clock: started now, by this first check" in first.stdout
    entry = status(cli, "softmax")
    assert entry["state"] == "solved" and entry["attempts"] == 1 and entry["started_at"]
    assert entry["first_pass_s"] is None and entry["best_s"] is None  # the first check is untimed
    second = json.loads(cli("check", "--json").stdout)  # it is now the exercise started last
    assert second["clock"]["started_at"] == entry["started_at"]
    entry = status(cli, "softmax")
    assert entry["attempts"] == 2 and entry["first_pass_s"] is not None
    assert all(e["started_at"] for e in json.loads(cli("status", "--json").stdout)["exercises"]
               if e["state"] != "new")


# ---- text: wrapped once, words and code whole, continuations indented, no trailing spaces ---------------

def _no_trailing_spaces(text):
    return [line for line in text.splitlines() if line != line.rstrip()]


@pytest.mark.parametrize("columns", [None, "40", "60", "120"])
def test_check_text_fits_the_width_without_splitting_code(cli, tmp_path, columns):
    (tmp_path / "mha.py").write_text((CORPUS / "mha" / "wrong_merge_no_transpose.py").read_text())
    env = {"COLUMNS": columns} if columns else {}
    out = cli("check", "mha.py", env=env).stdout
    width = int(columns or 80)
    assert _no_trailing_spaces(out) == []
    assert "h*d_head:(h+1)*d_head" in out and "transpose(0, 2, 1, 3)" in out
    for line in out.splitlines():
        assert len(line) <= width or " " not in line.strip(), line  # only a single unbreakable word may overflow
    lines = out.splitlines()
    at = next(i for i, line in enumerate(lines) if "likely mistake:" in line)
    follow = lines[at + 1]
    indent = 18 if width >= 48 else 6  # under the message, or under the label where the terminal is narrow
    assert follow.startswith(" " * indent) and follow[indent] != " ", (lines[at], follow)


@pytest.mark.parametrize("command", [["list"], ["status"], ["hint", "gqa", "--all"], ["show", "mha"],
                                     ["explain", "rope"], ["report"]])
def test_piped_output_has_no_trailing_spaces_and_follows_columns(cli, command):
    for columns in (None, "40"):
        out = cli(*command, env={"COLUMNS": columns} if columns else {}).stdout
        assert out.strip() and _no_trailing_spaces(out) == [], command
        if columns and command[0] in ("list", "status", "hint"):
            assert max(len(line) for line in out.splitlines()) <= 40, (command, out)


def test_hints_are_wrapped_once(cli):
    out = cli("hint", "gqa", "--all").stdout
    text = " ".join(line[2:-2].strip() for line in out.splitlines() if line.startswith("│"))
    assert "each KV head has to be made available" in " ".join(text.split())
    for panel in out.split("╭")[1:]:
        body = [line[2:-2].rstrip() for line in panel.splitlines() if line.startswith("│")]
        # Hard-wrapped text wrapped again leaves short stubs mid-paragraph ("each / KV / head"): every line of
        # a paragraph is as full as the next word allows.
        for before, after in zip(body, body[1:], strict=False):
            if before and after and not before.startswith("    ") and not after.startswith("    "):
                first = after.split()[0]
                if first.startswith("`") and first.count("`") == 1:  # an inline code span is never broken
                    first = after[:after.index("`", 1) + 1]
                assert len(before) + 1 + len(first) > 76, (before, after)


def test_hint_paragraphs_are_stored_unwrapped():
    for ex in catalogue.exercises():
        for hint in ex.hints():
            lines = hint.text.splitlines()
            for a, b in zip(lines, lines[1:], strict=False):
                prose = [x for x in (a, b) if x.strip() and not x.startswith("    ")]
                assert len(prose) < 2, f"{ex.slug}: hard-wrapped hint paragraph: {a!r} / {b!r}"


# ---- hints follow the mistake ------------------------------------------------------------------------------

STOP = set("the a an of to and or not is are be by in on at for with from as it its this that than then into each "
           "one every when only over before after their them what which so no do does".split())


def _words(text):
    return {w for w in re.findall(r"[a-z_][a-z0-9_]+", text.lower()) if w not in STOP and len(w) > 2}


def test_every_named_mistake_has_a_hint_that_says_more():
    for ex in catalogue.exercises():
        hints = ex.hints()
        for variant in mistakes_of(grader_module(ex)):
            keyed = [h for h in hints if variant.mistake_id in h.mistakes]
            assert keyed, f"{ex.slug}: no hint is keyed to the mistake {variant.mistake_id}"
            new = _words(keyed[0].text) - _words(variant.mistake_message)
            assert len(new) >= 8, f"{ex.slug}/{variant.mistake_id}: its hint adds only {sorted(new)}"


@pytest.mark.parametrize("slug,case,mistake", [("causal", "wrong_mask_diagonal", "mask-includes-diagonal"),
                                               ("mha", "wrong_mask_after_softmax", "mask-after-softmax"),
                                               ("mha", "wrong_merge_no_transpose", "merge-without-transpose")])
def test_the_first_hint_after_a_named_mistake_is_about_it(cli, tmp_path, slug, case, mistake):
    hints = catalogue.get(slug).hints()
    (tmp_path / f"{slug}.py").write_text((CORPUS / slug / f"{case}.py").read_text())
    checked = cli("check", f"{slug}.py")
    assert checked.returncode == 1 and f"likely mistake: {mistake}" in checked.stdout
    shown = cli("hint", slug).stdout
    number = int(re.search(r"hint (\d+) of", shown).group(1))
    assert mistake in hints[number - 1].mistakes, (number, hints[number - 1])
    assert number != 1 or mistake in hints[0].mistakes
    said = _words(checked.stdout)
    assert len(_words(shown) - said) >= 10  # it adds to what the check already said


def test_after_a_check_without_a_named_mistake_the_hint_follows_the_first_failed_invariant(cli, tmp_path):
    hints = catalogue.get("softmax").hints()
    body = solution("softmax").replace("shifted = z - np.max", "z -= np.max(z, axis=axis, keepdims=True)\n"
                                       "    shifted = z - np.max")
    (tmp_path / "softmax.py").write_text(body)
    report = json.loads(cli("check", "softmax.py", "--json").stdout)
    failed = [i["id"] for i in report["invariants"] if not i["passed"]]
    shown = cli("hint").stdout
    number = int(re.search(r"hint (\d+) of", shown).group(1))
    named = [m["id"] for m in report["mistakes"]]
    assert (named and named[0] in hints[number - 1].mistakes) or failed[0] in hints[number - 1].invariants


# ---- words: no internal documents, plain option messages ------------------------------------------------------

INTERNAL = ("DOMAIN.md", "EXERCISES.md", "CLI_CONTRACT", "beside the project")


def _strings(path):
    """The string constants of a Python file: what it can say, not its comments."""
    return [n.value for n in ast.walk(ast.parse(path.read_text())) if isinstance(n, ast.Constant)
            and isinstance(n.value, str)]


def test_nothing_a_user_sees_names_an_internal_document():
    texts = {}
    for folder in ("grader", "solutions", "src/attnprep"):
        for path in (ROOT / folder).rglob("*.py"):
            texts[path] = "\n".join(_strings(path))
    for path in [*ROOT.glob("exercises/*/*.md"), *ROOT.glob("exercises/*/*.toml"), *ROOT.glob("exercises/*/*.j2"),
                 *ROOT.glob("docs/*.md"), ROOT / "README.md", *ROOT.glob("src/attnprep/templates/*")]:
        texts[path] = path.read_text()
    for path, text in texts.items():
        for name in INTERNAL:
            assert name not in text, f"{path.relative_to(ROOT)} mentions {name}"
    readme = (ROOT / "README.md").read_text()
    assert "docs/cli.md" in readme and "docs/report-format.md" in readme
    assert (ROOT / "docs" / "cli.md").is_file() and (ROOT / "docs" / "report-format.md").is_file()


def test_invariant_descriptions_name_no_internal_document(cli):
    for ex in catalogue.exercises():
        out = cli("show", ex.slug).stdout
        for name in INTERNAL:
            assert name not in out, (ex.slug, name)


@pytest.mark.parametrize("args,said", [
    (["check", "x.py", "--timeout", "abc"], "'abc' is not a number of seconds"),
    (["check", "x.py", "--timeout", "0.1"], "give a number of seconds from 0.5 to 3600"),
    (["check", "x.py", "--seed", "x"], "'x' is not a whole number"),
    (["mock", "--count", "two"], "'two' is not a whole number of exercises"),
    (["mock", "--minutes", "soon"], "'soon' is not a number of minutes"),
    (["grade", ".", "-e", "softmax", "--jobs", "0"], "give a whole number of files 1 or more"),
])
def test_bad_option_values_get_plain_words(cli, args, said):
    result = cli(*args)
    assert result.returncode == 2 and said in result.stderr, result.stderr
    assert "valid float range" not in result.stderr and "valid int range" not in result.stderr


def test_mock_minutes_fractions_count_and_plurals(cli, tmp_path):
    short = cli("mock", "--count", "1", "--minutes", "0.05", "--dir", "m1")
    assert short.returncode == 0, short.stderr
    assert "mock interview: 1 exercise, 0:03 on one clock" in short.stdout
    assert cli("mock", "--minutes", "0", "--dir", "m0").returncode == 2
    many = cli("mock", "--count", "99", "--dir", "m2")
    n = len(catalogue.slugs())
    assert many.returncode == 0 and f"mock interview: {n} exercises" in many.stdout
    assert f"you asked for 99 exercises; only {n} are not solved yet" in many.stderr
    assert len(list((tmp_path / "m2").glob("*.py"))) == n
    half = cli("mock", "--count", "2", "--minutes", "7.5", "--dir", "m3")
    assert "2 exercises, 7:30 on one clock" in half.stdout


def test_a_correct_but_slow_file_is_told_to_take_longer(cli, tmp_path):
    slow = solution("softmax").replace("import numpy as np", "import time\n\nimport numpy as np\n\ntime.sleep(0.7)", 1)
    (tmp_path / "softmax.py").write_text(slow)
    result = cli("check", "softmax.py", "--timeout", "0.5")
    assert result.returncode == 1 and "TIMEOUT" in result.stdout
    assert "give it longer, `attnprep check softmax.py --timeout 10`" in " ".join(result.stdout.split())
    assert "stuck?" not in result.stdout


def test_help_gives_every_command_description_whole(cli):
    import typer.main

    from attnprep.cli import app

    out = cli("--help", env={"COLUMNS": "60"}).stdout
    flat = " ".join(out.split())
    assert not [line for line in out.splitlines()[1:] if line.rstrip().endswith("...")]
    for command in typer.main.get_command(app).commands.values():
        first = " ".join(command.help.split("\n\n")[0].split())
        assert first in flat, first


def test_a_mistake_that_is_a_symptom_of_a_broader_named_one_is_not_named():
    """Probes 0-1 are where a maximum over the blocked keys shows; 2-3 where one maximum of the whole array does."""
    from attnprep.diagnosis import _subsumed

    narrow, broad = ({0, 1}, {2, 3}), ({0, 1, 2, 3}, set())
    found = [("narrow", *narrow), ("broad", *broad)]
    assert _subsumed(*narrow, found)  # the broad one explains its probes and its unexplained deviations
    assert not _subsumed(*broad, found)
    # Two independent mistakes in one file: each leaves the other's deviations unexplained, so both are named.
    one, two = ({0}, {1}), ({1}, {0})
    assert not _subsumed(*one, [("one", *one), ("two", *two)])
    assert not _subsumed(*two, [("one", *one), ("two", *two)])


def _tiny_grader():
    """A grader of `double(x)` with one mistake that shows only as a refusal of integer input, and one that shows
    only as a refusal of 2-D input: what a PyTorch file's own refusals must not be taken for."""
    import types

    from attnprep.grading import mistake

    grader, ref = types.ModuleType("tiny_grader"), types.ModuleType("tiny_ref")
    grader.FUNCTIONS = ["double"]
    ref.double = lambda x: x * 2.0
    grader.probes = lambda rng: [("double", (np.arange(3),), {}), ("double", (np.ones(3),), {}),
                                 ("double", (np.ones((2, 2)),), {})]

    @mistake("int-in-place", "doubles x in place, which integer x refuses")
    def int_in_place(x):
        if x.dtype.kind in "iu":
            raise TypeError("Cannot cast ufunc 'multiply' output from float64 to int64")
        return x * 2.0

    @mistake("one-d-only", "works on 1-D x only")
    def one_d_only(x):
        if x.ndim != 1:
            raise ValueError("operands could not be broadcast together")
        return x * 2.0

    grader.int_in_place, grader.one_d_only = int_in_place, one_d_only
    return grader, ref


class _TorchLike:
    """A candidate that answers as `answer` does, raising as PyTorch does (RuntimeError, whatever the reason)."""

    def __init__(self, answer):
        self.answer = answer

    def call_tracking_args(self, fn, *args, **kwargs):
        from attnprep.grading import CandidateError

        try:
            return self.answer(*args), args, None
        except Exception as exc:
            raise CandidateError(fn, "RuntimeError", ["RuntimeError", "Exception"], str(exc), 1) from None


def test_a_pytorch_refusal_of_integer_input_names_no_mistake_on_its_own():
    from attnprep.diagnosis import _TABLES, diagnose

    grader, ref = _tiny_grader()

    def refuses_integers(x):  # right, but torch will not mix an integer tensor with a float
        if x.dtype.kind in "iu":
            raise RuntimeError("result type Float can't be cast to the desired output type Long")
        return x * 2.0

    def one_d_only(x):  # the second mistake, under torch's name for a shape mismatch
        if x.ndim != 1:
            raise RuntimeError("The size of tensor a (2) must match the size of tensor b (3)")
        return x * 2.0

    _TABLES.clear()

    def named(answer):
        return [m["id"] for m in diagnose(grader, ref, _TorchLike(answer), np.random.default_rng(0),
                                          other_framework=True)]

    assert named(refuses_integers) == []
    assert named(one_d_only) == ["one-d-only"]  # a refusal of float input still agrees, whatever its name
    _TABLES.clear()


def test_a_stub_says_not_implemented_once_and_as_above_after(cli, tmp_path):
    assert cli("start", "gqa").returncode == 0
    result = cli("check", "gqa.py")
    assert result.returncode == 1
    flat = " ".join(result.stdout.split())
    assert flat.count("not implemented yet (gqa_attention raises NotImplementedError)") == 1
    assert flat.count("as above") >= 8  # every other failed check, in its own row
