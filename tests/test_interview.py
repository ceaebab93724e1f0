"""Interviews with follow-ups through the installed CLI, on a fake clock: stages written one at a time, scorecard."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from attnprep import catalogue, state

ATTNPREP = str(Path(sys.executable).with_name("attnprep"))
CORPUS = Path(__file__).parent / "corpus"
T0 = "2026-11-29T12:00:00Z"


def at(offset_s: float) -> str:
    return state.iso(state.parse_iso(T0) + offset_s)


@pytest.fixture
def cli(tmp_path):
    home = tmp_path / "home"

    def run(*args, now=T0, expect=None):
        env = {**os.environ, "ATTNPREP_HOME": str(home), "ATTNPREP_NOW": now, "NO_COLOR": "1", "COLUMNS": "200"}
        proc = subprocess.run([ATTNPREP, *args], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
        if expect is not None:
            assert proc.returncode == expect, proc.stdout + proc.stderr
        assert "Traceback" not in proc.stderr, proc.stderr
        return proc

    run.dir = tmp_path
    return run


def solve(folder, slug):
    (folder / f"{slug}.py").write_text(catalogue.get(slug).solution_path.read_text())


def test_tracks_are_chains_of_existing_exercises():
    tracks = catalogue.tracks()
    names = [t.name for t in tracks]
    assert len(names) == len(set(names)) and not set(names) & set(catalogue.slugs())
    chains = {tuple(s.slug for s in t.stages) for t in tracks}
    assert {("softmax", "causal", "mha"), ("mha", "gqa", "decode"), ("attention", "window", "flash"),
            ("params", "kvcache")} <= chains
    for t in tracks:
        assert len(t.stages) >= 2 and t.minutes > 0 and all(s.ask for s in t.stages)
        assert all(s.slug in catalogue.slugs() for s in t.stages)


def test_list(cli):
    data = json.loads(cli("interview", "--list", "--json", expect=0).stdout)
    heads = next(t for t in data["tracks"] if t["name"] == "heads")
    assert [s["slug"] for s in heads["stages"]] == ["softmax", "causal", "mha"] and heads["minutes"] == 60
    assert "softmax → causal → mha" in cli("interview", "--list", expect=0).stdout


def test_a_track_writes_each_stage_when_the_last_passes_and_ends_with_a_scorecard(cli):
    folder = cli.dir / "iv"
    started = cli("interview", "heads", "--dir", str(folder), expect=0)
    assert "stage 1 of 3" in started.stdout and "softmax.py" in started.stdout
    assert sorted(p.name for p in folder.iterdir()) == ["softmax.py"]  # only stage 1 at the start
    stub = cli("check", str(folder / "softmax.py"), now=at(30), expect=1)
    assert "interview: 59:30 left" in stub.stdout and not (folder / "causal.py").exists()
    solve(folder, "softmax")
    passed = cli("check", str(folder / "softmax.py"), now=at(300), expect=0)
    assert "stage 1 of 3 passed in 5:00" in passed.stdout
    assert "stage 2 of 3: wrote" in passed.stdout and "cannot look at the future" in passed.stdout
    assert (folder / "causal.py").exists() and not (folder / "mha.py").exists()
    assert "# attnprep: causal" in (folder / "causal.py").read_text()
    solve(folder, "causal")
    report = cli("check", "--json", now=at(720), expect=0)  # no FILE: the stage started last
    payload = json.loads(report.stdout)
    assert payload["exercise"] == "causal" and payload["interview"]["next"]["slug"] == "mha"
    assert payload["interview"]["remaining_s"] == 3600 - 720 and "stage 3 of 3" in report.stderr
    cli("hint", "mha", now=at(800), expect=0)
    (folder / "mha.py").write_text(sorted((CORPUS / "mha").glob("wrong_*.py"))[0].read_text())
    failed = cli("check", str(folder / "mha.py"), now=at(1500), expect=1)
    assert "interview: 35:00 left" in failed.stdout
    card = json.loads(cli("interview", "--end", "--json", now=at(1800), expect=0).stdout)
    assert [s["slug"] for s in card["stages"]] == ["softmax", "causal", "mha"]
    softmax, causal, mha = card["stages"]
    assert softmax["passed"] and softmax["time_s"] == 300 and softmax["checks"] == 1  # the bare stub is no attempt
    assert softmax["failed_on_the_way"] == [] and softmax["hints_used"] == 0
    assert causal["passed"] and causal["time_s"] == 420 and causal["checks"] == 1
    assert not mha["passed"] and mha["reached"] and mha["hints_used"] == 1 and mha["time_s"] == 1800 - 720
    assert mha["failed_on_the_way"] and mha["checks"] == 1
    assert card["total_s"] == 1800 and card["target_s"] == 3600 and not card["complete"]
    assert card["stages_passed"] == 2 and card["within_target"] is False
    again = cli("interview", "--end", now=at(1900), expect=2)
    assert "no interview is running" in again.stderr and "hint:" in again.stderr


def test_a_completed_track_against_its_target(cli):
    cli("interview", "memory", expect=0)
    solve(cli.dir, "params")
    cli("check", "params.py", now=at(600), expect=0)
    solve(cli.dir, "kvcache")
    done = cli("check", "kvcache.py", now=at(1200), expect=0)
    assert "every stage passed" in done.stdout
    text = cli("interview", "--end", now=at(2000), expect=0).stdout
    assert "2 of 2 stages passed; total 20:00, within the 25:00 target" in text
    assert "params" in text and "kvcache" in text


def test_the_countdown_running_out_ends_the_interview_at_the_next_check(cli):
    cli("interview", "memory", expect=0)
    late = cli("check", "params.py", now=at(26 * 60), expect=1)
    assert "time is up: the interview is over" in late.stdout and "scorecard" in late.stdout
    cli("interview", "--end", now=at(27 * 60), expect=2)


def test_starting_keeps_an_existing_file_and_replaces_a_running_interview(cli):
    (cli.dir / "params.py").write_text("# my own work\n")
    cli("interview", "memory", expect=0)
    assert [b.read_text() for b in cli.dir.glob("params.py.*.bak")] == ["# my own work\n"]
    again = cli("interview", "heads", expect=0)
    assert "replaced" in again.stderr
    card = json.loads(cli("interview", "--end", "--json", expect=0).stdout)
    assert card["track"] == "heads"


@pytest.mark.parametrize("args, says", [
    ([], "give a TRACK"),
    (["nosuch"], "unknown interview track"),
    (["head"], "did you mean `heads`"),
    (["heads", "--end"], "do not go together"),
    (["heads", "--json"], "--json goes with"),
])
def test_usage_errors(cli, args, says):
    result = cli("interview", *args, expect=2)
    assert says in result.stderr and "hint:" in result.stderr


def test_mock_is_unchanged_beside_an_interview(cli):
    cli("interview", "memory", expect=0)
    cli("mock", "--count", "1", "--minutes", "5", "--dir", "mock", expect=0)
    assert json.loads(cli("mock", "--end", "--json", expect=0).stdout)["minutes"] == 5
    assert json.loads(cli("interview", "--end", "--json", expect=0).stdout)["track"] == "memory"


def test_the_mock_countdown_follows_the_fake_clock_too(cli):
    cli("mock", "--count", "1", "--minutes", "5", expect=0)
    slug = catalogue.slugs()[0]
    assert "mock interview: 4:00 left" in cli("check", f"{slug}.py", now=at(60), expect=1).stdout
    assert "time is up: the mock interview is over" in cli("check", f"{slug}.py", now=at(600), expect=1).stdout
