"""The command line as a learner uses it: exit codes, files never lost, progress counted."""

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from attnprep import catalogue
from attnprep.cli import app

runner = CliRunner()


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("ATTNPREP_HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    return tmp_path / "home"


def run(*args):
    return runner.invoke(app, list(args))


def solve(path, slug="softmax"):
    path.write_text(catalogue.get(slug).solution_path.read_text())


def status_of(slug="softmax"):
    result = run("status", "--json")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    return next(e for e in data["exercises"] if e["slug"] == slug)


def test_version_and_help():
    assert run("--version").exit_code == 0
    result = run("--help")
    assert result.exit_code == 0 and "check" in result.stdout


def test_list_shows_every_exercise_in_catalogue_order():
    result = run("list")
    assert result.exit_code == 0
    positions = [result.stdout.find(s) for s in catalogue.slugs()]
    assert all(p >= 0 for p in positions)


def test_show_and_unknown_exercise_suggests():
    shown = run("show", "softmax")
    assert shown.exit_code == 0 and "masked-entries" in shown.stdout and "input-unchanged" in shown.stdout
    result = run("show", "softmx")
    assert result.exit_code == 2
    assert "unknown exercise" in result.stderr and "did you mean `softmax`" in result.stderr
    assert "Traceback" not in result.output


def test_start_writes_stub_and_refuses_to_overwrite(tmp_path):
    result = run("start", "softmax")
    assert result.exit_code == 0
    path = tmp_path / "softmax.py"
    assert path.read_text().splitlines()[0] == "# attnprep: softmax"
    assert "attnprep check" in result.stdout
    path.write_text("# attnprep: softmax\n# my work\n")
    refused = run("start", "softmax")
    assert refused.exit_code == 2 and "already exists" in refused.stderr
    assert path.read_text() == "# attnprep: softmax\n# my work\n"
    forced = run("start", "softmax", "--force")
    assert forced.exit_code == 0
    backups = list(tmp_path.glob("softmax.py.*.bak"))
    assert len(backups) == 1 and backups[0].read_text() == "# attnprep: softmax\n# my work\n"
    assert "NotImplementedError" in path.read_text()


def test_start_into_dir(tmp_path):
    assert run("start", "softmax", "--dir", "work/sub").exit_code == 0
    assert (tmp_path / "work" / "sub" / "softmax.py").is_file()


def test_check_stub_fails_then_solution_passes_and_progress_counts(tmp_path):
    run("start", "softmax")
    first = run("check", "softmax.py", "--json")
    assert first.exit_code == 1
    report = json.loads(first.stdout)
    assert report["status"] == "fail" and report["exercise"] == "softmax" and report["version"] == 1
    assert all(not i["passed"] and "not implemented" in i["message"] for i in report["invariants"])
    assert report["clock"]["target_s"] == 600
    solve(tmp_path / "softmax.py")
    second = run("check", "--json")  # no FILE: the exercise started most recently
    assert second.exit_code == 0, second.stdout
    assert json.loads(second.stdout)["status"] == "pass"
    entry = status_of()
    assert entry["state"] == "solved" and entry["attempts"] == 2 and entry["last_status"] == "pass"
    assert entry["first_pass_s"] is not None and entry["best_s"] == entry["first_pass_s"]


def test_json_report_has_every_contract_field(tmp_path):
    solve(tmp_path / "softmax.py")
    report = json.loads(run("check", "softmax.py", "--json").stdout)
    for key in ("version", "exercise", "file", "status", "message", "elapsed_s", "seed", "invariants",
                "mistakes", "clock"):
        assert key in report
    assert report["clock"] is None  # never started
    for inv in report["invariants"]:
        assert set(inv) >= {"id", "description", "status", "passed", "message"}


def test_human_report_names_failing_invariant(tmp_path):
    (tmp_path / "softmax.py").write_text((Path(__file__).parent / "corpus/softmax/wrong_global_max.py").read_text())
    result = run("check", "softmax.py")
    assert result.exit_code == 1
    assert "FAIL" in result.stdout and "stable" in result.stdout


def test_exercise_inference(tmp_path):
    body = catalogue.get("softmax").solution_path.read_text().split("\n", 1)[1]
    (tmp_path / "softmax.py").write_text(body)  # no first line: the file name tells
    assert run("check", "softmax.py").exit_code == 0
    (tmp_path / "mine.py").write_text(body)
    cannot = run("check", "mine.py")
    assert cannot.exit_code == 2 and "--exercise" in cannot.stderr
    assert run("check", "mine.py", "--exercise", "softmax").exit_code == 0
    (tmp_path / "other.py").write_text("# attnprep: softmax\n" + body)
    assert run("check", "other.py").exit_code == 0
    assert run("check", "mine.py", "--exercise", "nope").exit_code == 2


def test_check_usage_errors():
    missing = run("check", "nothing.py")
    assert missing.exit_code == 2 and "does not exist" in missing.stderr
    nothing_started = run("check")
    assert nothing_started.exit_code == 2 and "start" in nothing_started.stderr
    assert run("check", "x.py", "--timeout", "-1").exit_code == 2
    assert run("check", "x.py", "--seed", "-1").exit_code == 2


def test_hints_are_revealed_one_at_a_time_and_counted():
    n = len(catalogue.get("softmax").hints())
    run("start", "softmax")
    first = run("hint")
    assert first.exit_code == 0 and f"hint 1 of {n}" in first.stdout
    assert status_of()["hints_used"] == 1
    assert f"hint 2 of {n}" in run("hint", "softmax").stdout
    assert status_of()["hints_used"] == 2
    everything = run("hint", "softmax", "--all")
    assert f"hint {n} of {n}" in everything.stdout
    assert status_of()["hints_used"] == n
    past = run("hint", "softmax")
    assert past.exit_code == 0 and "already revealed" in past.stderr
    assert status_of()["hints_used"] == n


def test_after_a_failed_check_the_hint_for_that_invariant_comes_first(tmp_path):
    hints = catalogue.get("softmax").hints()
    keyed = next(i for i, h in enumerate(hints) if "input-unchanged" in h.invariants and i > 0)
    (tmp_path / "softmax.py").write_text((catalogue.get("softmax").solution_path.read_text())
                                         .replace("shifted = z - np.max", "z -= np.max(z, axis=axis, keepdims=True)"
                                                  "\n    shifted = z - np.max"))
    report = json.loads(run("check", "softmax.py", "--json").stdout)
    assert [i["id"] for i in report["invariants"] if not i["passed"]] == ["input-unchanged"]
    result = run("hint", "softmax")
    assert f"hint {keyed + 1} of {len(hints)}" in result.stdout
    assert status_of()["hints_used"] == 1


def test_solution_needs_confirmation_until_solved(tmp_path):
    refused = run("solution", "softmax")  # CliRunner's stdin is not a terminal
    assert refused.exit_code == 2 and "--yes" in refused.stderr
    assert "def softmax" not in refused.stdout
    shown = run("solution", "softmax", "--yes")
    assert shown.exit_code == 0 and "def softmax" in shown.stdout
    solve(tmp_path / "softmax.py")
    assert run("check", "softmax.py").exit_code == 0
    assert run("solution", "softmax").exit_code == 0


def test_reset_keeps_backup_and_restarts_clock(tmp_path):
    run("start", "softmax")
    solve(tmp_path / "softmax.py")
    result = run("reset", "softmax")
    assert result.exit_code == 0
    backups = list(tmp_path.glob("softmax.py.*.bak"))
    assert len(backups) == 1 and "np.max" in backups[0].read_text()
    assert "NotImplementedError" in (tmp_path / "softmax.py").read_text()


def test_damaged_progress_is_set_aside(home):
    home.mkdir(parents=True)
    (home / "progress.json").write_text("{not json")
    result = run("status", "--json")
    assert result.exit_code == 0
    assert "damaged" in result.stderr
    assert json.loads(result.stdout)["exercises"][0]["state"] == "new"
    assert list(home.glob("progress.json.damaged-*"))
    (home / "progress.json").write_text(json.dumps({"version": 1, "exercises": {"softmax": 7}}))
    assert run("list").exit_code == 0


def test_status_lists_every_exercise_in_order():
    data = json.loads(run("status", "--json").stdout)
    assert [e["slug"] for e in data["exercises"]] == catalogue.slugs()
    assert all(e["state"] == "new" and e["attempts"] == 0 for e in data["exercises"])


def test_demo_runs_without_setup(home):
    result = run("demo")
    assert result.exit_code == 0
    assert "FAIL" in result.stdout and "PASS" in result.stdout
    assert not (home / "progress.json").exists() or json.loads((home / "progress.json").read_text())


def test_unreadable_state_dir_is_not_a_traceback(tmp_path, monkeypatch):
    blocker = tmp_path / "file-not-dir"
    blocker.write_text("x")
    monkeypatch.setenv("ATTNPREP_HOME", str(blocker / "home"))
    result = run("start", "softmax")
    assert result.exit_code == 2 and "ATTNPREP_HOME" in result.stderr
    assert "Traceback" not in result.output
    assert not os.path.exists(tmp_path / "softmax.py")  # all or nothing: no stub without its clock


def test_start_into_an_unwritable_place_is_a_usage_error(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    result = run("start", "softmax", "--dir", str(blocker / "sub"))
    assert result.exit_code == 2 and "cannot write" in result.stderr and "Traceback" not in result.output
