"""Spaced review through the installed CLI, on a fake clock (ATTNPREP_NOW): ratings, next, review, migration."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from attnprep import catalogue, schedule, state

ATTNPREP = str(Path(sys.executable).with_name("attnprep"))
CORPUS = Path(__file__).parent / "corpus"
FIXTURE_V1 = Path(__file__).parent / "fixtures" / "progress-v1.json"  # written by attnprep 0.1.0 (progress v1)
T0 = "2026-11-29T12:00:00Z"


def at(offset_s: float) -> str:
    return state.iso(state.parse_iso(T0) + offset_s)


@pytest.fixture
def cli(tmp_path):
    home = tmp_path / "home"

    def run(*args, now=T0, expect=None):
        env = {**os.environ, "ATTNPREP_HOME": str(home), "ATTNPREP_NOW": now, "NO_COLOR": "1"}
        proc = subprocess.run([ATTNPREP, *args], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
        if expect is not None:
            assert proc.returncode == expect, proc.stdout + proc.stderr
        assert "Traceback" not in proc.stderr, proc.stderr
        return proc

    run.home, run.dir = home, tmp_path
    return run


def put(cli, slug, source):
    (cli.dir / f"{slug}.py").write_text(source.read_text())


def wrong(slug):
    return sorted((CORPUS / slug).glob("wrong_*.py"))[0]


def solution(slug):
    return catalogue.get(slug).solution_path


def reviews(cli, slug, now=T0):
    data = json.loads(cli("review", "--json", now=now, expect=0).stdout)
    return next(e for e in data["exercises"] if e["slug"] == slug)


def log(cli, slug):
    return json.loads((cli.home / "progress.json").read_text())["schedule"][slug]["log"]


def test_rating_rules():
    assert schedule.rating_for(True, 0, 300, 600) == "good"
    assert schedule.rating_for(True, 0, None, 600) == "good"  # a file never started: no clock, hints decide
    assert schedule.rating_for(True, 1, 300, 600) == "hard"
    assert schedule.rating_for(True, 0, 601, 600) == "hard"
    assert schedule.rating_for(False, 0, 1, 600) == "again"


def test_fresh_user_gets_the_first_exercise(cli):
    data = json.loads(cli("next", "--json", expect=0).stdout)
    assert data["next"]["slug"] == catalogue.slugs()[0] and data["next"]["reason"] == "new"
    assert data["next"]["command"] == f"attnprep start {catalogue.slugs()[0]}" and data["due"] == []
    text = cli("next", expect=0).stdout
    assert text.startswith(f"next: {catalogue.slugs()[0]}") and "why:" in text and "run: attnprep start" in text
    assert all(e["due"] is None and e["reviews"] == 0 for e in json.loads(cli("review", "--json").stdout)["exercises"])


def test_one_again_per_session_then_the_pass_and_the_due_date_everywhere(cli):
    cli("start", "softmax", expect=0)
    cli("check", "softmax.py", now=at(30), expect=1)  # the untouched stub: not an attempt
    assert reviews(cli, "softmax")["reviews"] == 0
    put(cli, "softmax", wrong("softmax"))
    cli("check", "softmax.py", now=at(120), expect=1)
    cli("check", "softmax.py", now=at(180), expect=1)  # the same session: no second "again"
    assert [r["rating"] for r in log(cli, "softmax")] == ["again"]
    put(cli, "softmax", solution("softmax"))
    cli("check", "softmax.py", now=at(300), expect=0)
    cli("check", "softmax.py", now=at(320), expect=0)  # passing again in the session rates nothing
    entries = log(cli, "softmax")
    assert [r["rating"] for r in entries] == ["again", "good"] and entries[1]["why"] == "passed in 5:00"
    row = reviews(cli, "softmax", now=at(400))
    assert row["reviews"] == 2 and row["last_rating"] == "good" and not row["is_due"]
    due = state.parse_iso(row["due"])
    assert 86400 <= due - state.parse_iso(at(300)) <= 3 * 86400  # a day or two after a lapse in the same sitting
    status = json.loads(cli("status", "--json", now=at(400), expect=0).stdout)
    assert next(e for e in status["exercises"] if e["slug"] == "softmax")["due"] == row["due"]
    listed = cli("list", now=at(400), expect=0).stdout
    assert any(line.split("│")[1].strip() == "softmax" and " in " in line.split("│")[7] for line in listed.splitlines()
               if line.count("│") == 8)
    later = json.loads(cli("next", "--json", now=state.iso(due + 3600), expect=0).stdout)
    assert later["next"]["slug"] == "softmax" and later["next"]["reason"] == "due"
    assert "due" in later["next"]["why"] and later["next"]["command"] == "attnprep reset softmax"
    assert "now" in cli("list", now=state.iso(due + 3600)).stdout


def test_hints_or_time_over_target_rate_hard_and_a_clean_pass_waits_longer(cli):
    cli("start", "softmax", expect=0)
    put(cli, "softmax", solution("softmax"))
    cli("check", "softmax.py", now=at(200), expect=0)
    cli("start", "causal", expect=0)
    cli("hint", "causal", now=at(60), expect=0)
    put(cli, "causal", solution("causal"))
    cli("check", "causal.py", now=at(240), expect=0)
    cli("start", "xent", expect=0)
    put(cli, "xent", solution("xent"))
    cli("check", "xent.py", now=at(11 * 60), expect=0)  # a 10-minute target
    assert log(cli, "softmax")[0]["rating"] == "good"
    assert log(cli, "causal")[0]["rating"] == "hard" and "1 hint" in log(cli, "causal")[0]["why"]
    assert log(cli, "xent")[0]["rating"] == "hard" and "over the 10:00 target" in log(cli, "xent")[0]["why"]
    assert reviews(cli, "softmax")["due"] > reviews(cli, "causal")["due"]


def test_showing_the_solution_before_passing_is_again_and_the_later_pass_is_not_rated(cli):
    cli("start", "softmax", expect=0)
    cli("solution", "softmax", "--yes", now=at(60), expect=0)
    put(cli, "softmax", solution("softmax"))
    cli("check", "softmax.py", now=at(120), expect=0)
    assert [(r["rating"], r["why"]) for r in log(cli, "softmax")] == [("again", "showed the solution")]
    cli("start", "causal", expect=0)
    put(cli, "causal", solution("causal"))
    cli("check", "causal.py", now=at(120), expect=0)
    cli("solution", "causal", now=at(130), expect=0)  # after a pass, reading the reference is study
    assert [r["rating"] for r in log(cli, "causal")] == ["good"]


def test_a_new_session_is_a_new_review(cli):
    cli("start", "softmax", expect=0)
    put(cli, "softmax", solution("softmax"))
    cli("check", "softmax.py", now=at(100), expect=0)
    three_days = 3 * 86400
    cli("reset", "softmax", now=at(three_days), expect=0)
    put(cli, "softmax", solution("softmax"))
    cli("check", "softmax.py", now=at(three_days + 200), expect=0)
    assert [r["rating"] for r in log(cli, "softmax")] == ["good", "good"]
    assert reviews(cli, "softmax", now=at(three_days + 300))["due"] > at(three_days + 5 * 86400)


def test_the_invariants_failed_most_often_weigh_in_among_due_exercises(cli):
    # mha failed `prefix` and `scale`, causal `prefix` only, attention passed: the two failures lapse alike,
    # and `prefix`, failed in two exercises, weighs most.
    history = {"causal": ["prefix"], "mha": ["prefix", "scale"], "attention": []}
    data = state.empty_state()
    for slug, failed in history.items():
        entry = state.empty_entry()
        entry["history"] = [{"at": at(60), "status": "fail" if failed else "pass", "failed": failed, "clock_s": 60.0}]
        entry["attempts"] = 1
        data["exercises"][slug] = entry
    data["schedule"] = schedule.from_history(data)
    cli.home.mkdir(parents=True)
    (cli.home / "progress.json").write_text(json.dumps(data))
    later = at(10 * 86400)
    planned = json.loads(cli("next", "--json", now=later, expect=0).stdout)
    ranked = [r["slug"] for r in planned["due"]]
    assert ranked == ["mha", "causal", "attention"]  # attention: no failures to weigh, and a pass forgets slower
    assert planned["next"]["slug"] == "mha"
    assert {w["id"] for w in planned["next"]["weak_invariants"]} == {"prefix", "scale"}
    assert "you fail its invariants often" in planned["next"]["why"]


def test_review_lists_every_exercise_due_first(cli):
    cli("start", "causal", expect=0)
    put(cli, "causal", wrong("causal"))
    cli("check", "causal.py", now=at(60), expect=1)
    text = cli("review", now=at(3 * 86400), expect=0).stdout
    rows = [line.split("│")[1].strip() for line in text.splitlines() if line.count("│") == 7]
    assert rows[0] == "causal" and sorted(rows) == sorted(catalogue.slugs())
    assert "now" in next(line for line in text.splitlines() if "│ causal" in line)


def test_a_progress_file_of_the_previous_version_migrates_without_loss(cli):
    cli.home.mkdir(parents=True)
    shutil.copy(FIXTURE_V1, cli.home / "progress.json")
    old = json.loads(FIXTURE_V1.read_text())
    now = "2026-11-24T12:00:00Z"
    status = json.loads(cli("status", "--json", now=now, expect=0).stdout)
    for row in status["exercises"]:
        before = old["exercises"].get(row["slug"])
        if before:
            assert all(row[k] == before[k] for k in ("attempts", "hints_used", "started_at", "first_pass_s", "best_s",
                                                      "last_status"))
    ratings = {e["slug"]: e for e in json.loads(cli("review", "--json", now=now, expect=0).stdout)["exercises"]}
    assert ratings["softmax"]["reviews"] == 3 and ratings["softmax"]["last_rating"] == "again"  # two sessions
    assert ratings["causal"]["last_rating"] == "hard"  # a hint, and 21 minutes on a 15-minute target
    assert ratings["mha"]["reviews"] == 1 and ratings["kvcache"]["last_rating"] == "good"
    assert ratings["rope"]["reviews"] == 0 and ratings["rope"]["due"] is None
    cli("hint", "rope", now=now, expect=0)  # any write stores the migrated file
    new = json.loads((cli.home / "progress.json").read_text())
    assert new["version"] == state.STATE_VERSION and new["mock"] == old["mock"]
    assert new["last_started"] == old["last_started"]
    for slug, entry in old["exercises"].items():
        assert new["exercises"][slug] == {**state.empty_entry(), **entry}
    # the session still running when the file was migrated goes on: its failure is not counted twice
    put(cli, "softmax", wrong("softmax"))
    cli("check", "softmax.py", now=now, expect=1)
    assert [r["rating"] for r in log(cli, "softmax")] == ["again", "good", "again"]


def test_a_damaged_schedule_is_rebuilt_from_the_history_and_nothing_else_is_lost(cli):
    cli.home.mkdir(parents=True)
    data = state.migrate(json.loads(FIXTURE_V1.read_text()))
    data["schedule"]["softmax"] = {"log": [{"at": "yesterday", "rating": "meh"}]}
    data["schedule"]["causal"] = "garbage"
    (cli.home / "progress.json").write_text(json.dumps(data))
    result = cli("review", "--json", now="2026-11-24T12:00:00Z", expect=0)
    assert "damaged" not in result.stderr
    rows = {e["slug"]: e for e in json.loads(result.stdout)["exercises"]}
    assert rows["softmax"]["reviews"] == 3 and rows["causal"]["last_rating"] == "hard"


def test_a_bad_fake_clock_is_a_usage_error(cli):
    result = cli("next", now="tomorrow", expect=2)
    assert "ATTNPREP_NOW" in result.stderr and "hint:" in result.stderr


@pytest.mark.parametrize("args", [["list"], ["status", "--json"]])
def test_list_and_status_read_due_dates_without_importing_fsrs(cli, args):
    cli("start", "softmax", expect=0)
    put(cli, "softmax", solution("softmax"))
    cli("check", "softmax.py", now=at(60), expect=0)
    env = {**os.environ, "ATTNPREP_HOME": str(cli.home), "ATTNPREP_NOW": at(120)}
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "attnprep", *args], capture_output=True,
                          text=True, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr[-2000:]
    imported = {line.rsplit("|", 1)[-1].strip().split(".")[0] for line in proc.stderr.splitlines() if "|" in line}
    assert "typer" in imported and "fsrs" not in imported
    assert not imported & {"rich", "numpy", "jinja2", "tomllib"}


def test_the_report_shows_the_next_review(cli):
    cli("start", "softmax", expect=0)
    put(cli, "softmax", solution("softmax"))
    cli("check", "softmax.py", now=at(60), expect=0)
    due = reviews(cli, "softmax")["due"]
    cli("report", "--html", "page.html", now=at(120), expect=0)
    page = (cli.dir / "page.html").read_text()
    row = page[page.index('data-slug="softmax"'):]
    assert "next review" in page and due[:10] in row[:row.index("</tr>")]
    later = state.iso(state.parse_iso(due) + 60)
    cli("report", "--html", "later.html", now=later, expect=0)
    row = (cli.dir / "later.html").read_text().split('data-slug="softmax"')[1].split("</tr>")[0]
    assert "<strong>due</strong>" in row


def test_migrating_a_damaged_old_file_never_crashes():
    for data in ({"version": 1, "exercises": []}, {"version": 1, "exercises": {"softmax": "x", "causal": {
            "history": [{"at": "bad"}, {"at": T0, "status": "fail", "failed": "scale", "clock_s": True}, 7],
            "hints_used": "many"}}}):
        migrated = state.migrate(data)
        assert migrated["version"] == state.STATE_VERSION and isinstance(migrated["schedule"], dict)
