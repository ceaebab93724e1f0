"""Mock interviews: picking, one countdown, the scorecard, and the countdown running out."""

import json
import time

import pytest
from typer.testing import CliRunner

from attnprep import catalogue, state
from attnprep.cli import app

runner = CliRunner()


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("ATTNPREP_HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)


def run(*args):
    return runner.invoke(app, list(args))


def test_mock_favours_failed_exercises_and_skips_solved(tmp_path):
    slugs = catalogue.slugs()
    state.record_check(slugs[0], "pass", [], None)  # solved: never picked
    state.record_check(slugs[3], "fail", ["x"], None)
    state.record_check(slugs[3], "fail", ["x"], None)
    state.record_check(slugs[2], "fail", ["x"], None)
    result = run("mock", "--count", "3", "--dir", "mock")
    assert result.exit_code == 0, result.output
    mock = state.load()["mock"]
    assert mock["slugs"] == [slugs[3], slugs[2], slugs[1]]
    assert mock["minutes"] == sum(catalogue.get(s).minutes for s in mock["slugs"])
    for slug in mock["slugs"]:
        assert (tmp_path / "mock" / f"{slug}.py").is_file()


def test_mock_scorecard(tmp_path):
    assert run("mock", "--count", "2", "--minutes", "30").exit_code == 0
    first, second = state.load()["mock"]["slugs"]
    (tmp_path / f"{first}.py").write_text(catalogue.get(first).solution_path.read_text())
    checked = run("check", f"{first}.py", "--json")
    assert checked.exit_code == 0
    assert 0 < json.loads(checked.stdout)["mock"]["remaining_s"] <= 1800
    assert "left" in run("check", f"{second}.py").stdout  # the stub fails, the time left is shown
    run("hint", second)
    ended = run("mock", "--end", "--json")
    assert ended.exit_code == 0
    rows = {r["slug"]: r for r in json.loads(ended.stdout)["exercises"]}
    assert rows[first]["solved"] and rows[first]["time_s"] is not None and rows[first]["hints_used"] == 0
    assert not rows[second]["solved"] and rows[second]["hints_used"] == 1
    assert rows[second]["failed_on_the_way"]
    again = run("mock", "--end")
    assert again.exit_code == 2 and "no mock interview" in again.stderr


def test_countdown_running_out_ends_the_mock_at_the_next_check(tmp_path):
    run("mock", "--count", "1", "--minutes", "5")
    slug = state.load()["mock"]["slugs"][0]
    with state.updating() as data:  # ten minutes ago
        data["mock"]["started_at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 600))
    result = run("check", f"{slug}.py")
    assert "time is up" in result.stdout and "scorecard" in result.stdout
    assert state.load()["mock"]["ended"]


def test_mock_never_loses_a_file(tmp_path):
    slug = catalogue.slugs()[0]
    (tmp_path / f"{slug}.py").write_text("# my own work\n")
    assert run("mock", "--count", "1").exit_code == 0
    backups = list(tmp_path.glob(f"{slug}.py.*.bak"))
    assert [b.read_text() for b in backups] == ["# my own work\n"]
