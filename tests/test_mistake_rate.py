"""The mistake-rate command: the share of known-wrong corpus files the report names with a mistake."""

import json
import subprocess
import sys
from pathlib import Path

from mistake_rate import tally, wrong_cases

SCRIPT = Path(__file__).parent / "mistake_rate.py"


def run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=300)


def test_tally_per_exercise_and_overall():
    summary = tally([("a", "a/w1", ["x"]), ("a", "a/w2", []), ("b", "b/w1", ["y", "z"]), ("a", "a/w3", ["x"])])
    rows = {r["exercise"]: r for r in summary["exercises"]}
    assert (rows["a"]["wrong"], rows["a"]["named"], rows["a"]["unnamed"]) == (3, 2, ["a/w2"])
    assert rows["b"]["rate"] == 1.0 and abs(rows["a"]["rate"] - 2 / 3) < 1e-12
    assert (summary["wrong"], summary["named"], summary["rate"]) == (4, 3, 0.75)


def test_only_known_wrong_files_count():
    cases = wrong_cases(["kvcache"])
    assert cases and all(not c.passes and c.slug == "kvcache" for c in cases)
    assert len(cases) == sum("# expect: fail" in p.read_text() for p in (SCRIPT.parent / "corpus/kvcache").glob("*.py"))


def test_the_command_on_one_exercise():
    proc = run("kvcache", "--json", "--jobs", "2")
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    (row,) = summary["exercises"]
    assert row["exercise"] == "kvcache" and row["wrong"] == len(wrong_cases(["kvcache"]))
    assert row["named"] + len(row["unnamed"]) == row["wrong"] and summary["rate"] == row["rate"]
    assert 0 < summary["named"] <= summary["wrong"]
    text = run("kvcache", "--unnamed", "--min", "101")
    assert text.returncode == 1 and "below the floor" in text.stderr
    lines = text.stdout.splitlines()
    assert lines[0].split() == ["exercise", "wrong", "named", "rate"] and lines[-1].startswith("overall")
    assert sum("not named: kvcache/" in line for line in lines) == len(row["unnamed"])


def test_an_exercise_without_corpus_is_a_usage_error():
    proc = run("nosuch")
    assert proc.returncode == 2 and proc.stderr.startswith("error:") and "hint: exercises with a corpus:" in proc.stderr
