"""`attnprep grade`: a class's submissions, each isolated; one bad file never stops the others."""

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

from attnprep import catalogue

HOSTILE = Path(__file__).parent / "hostile"


def test_grade_a_folder(tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    (folder / "ana.py").write_text(catalogue.get("softmax").solution_path.read_text())
    (folder / "ben.py").write_text((Path(__file__).parent / "corpus/softmax/wrong_global_max.py").read_text())
    (folder / "cy.py").write_text((HOSTILE / "loop_in_one_invariant.py").read_text())
    (folder / "dee.py").write_text((HOSTILE / "segfault.py").read_text())
    (folder / "notes.txt").write_text("not a submission")
    env = {**os.environ, "ATTNPREP_HOME": str(tmp_path / "home")}
    proc = subprocess.run([sys.executable, "-m", "attnprep", "grade", str(folder), "--exercise", "softmax",
                           "--jobs", "2", "--timeout", "4", "--json", str(tmp_path / "out.json"),
                           "--csv", str(tmp_path / "out.csv")], capture_output=True, env=env, timeout=120)
    assert proc.returncode == 1, proc.stderr  # not every submission passed
    assert b"ana.py" in proc.stdout and b"Traceback" not in proc.stderr
    results = {Path(r["file"]).name: r for r in json.loads((tmp_path / "out.json").read_text())["results"]}
    assert sorted(results) == ["ana.py", "ben.py", "cy.py", "dee.py"]
    assert results["ana.py"]["status"] == "pass"
    assert results["ben.py"]["status"] == "fail"
    assert {i["id"]: i["status"] for i in results["cy.py"]["invariants"]}["axis"] == "timeout"
    assert results["dee.py"]["status"] in ("fail", "timeout")
    rows = list(csv.DictReader((tmp_path / "out.csv").open()))
    assert [Path(r["file"]).name for r in rows] == ["ana.py", "ben.py", "cy.py", "dee.py"]
    assert rows[1]["failed_invariants"] == "stable"
    assert not (tmp_path / "home" / "progress.json").exists()  # grading others records no progress


def test_grade_usage_errors(tmp_path):
    env = {**os.environ, "ATTNPREP_HOME": str(tmp_path)}
    run = lambda *a: subprocess.run([sys.executable, "-m", "attnprep", "grade", *a], capture_output=True, env=env)  # noqa: E731
    assert run(str(tmp_path / "nope"), "-e", "softmax").returncode == 2
    assert run(str(tmp_path), "-e", "softmax").returncode == 2  # no .py files
    assert run(str(tmp_path), "-e", "sofmax").returncode == 2
