"""Progress is never lost: concurrent runs, kills mid-write, damaged files."""

import json
import os
import signal
import subprocess
import sys
import time

from attnprep import state


def _env(home):
    return {**os.environ, "ATTNPREP_HOME": str(home)}


def test_eight_concurrent_checks_lose_no_attempt(tmp_path):
    home = tmp_path / "home"
    solution = tmp_path / "softmax.py"
    solution.write_text("# attnprep: softmax\nimport numpy as np\n\ndef softmax(z, axis=-1):\n    return z\n")
    procs = [subprocess.Popen([sys.executable, "-m", "attnprep", "check", str(solution), "--json"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=_env(home))
             for _ in range(8)]
    assert [p.wait(timeout=120) for p in procs] == [1] * 8
    out = subprocess.run([sys.executable, "-m", "attnprep", "status", "--json"], capture_output=True,
                         env=_env(home), check=True).stdout
    entry = json.loads(out)["exercises"][0]
    assert entry["slug"] == "softmax" and entry["attempts"] == 8


WRITER = """
import sys
from attnprep import state
i = 0
while True:
    i += 1
    state.record_check("softmax", "fail", ["stable"] * (i % 50), None)
"""


def test_kill_during_writes_never_leaves_an_unreadable_file(tmp_path, monkeypatch):
    home = tmp_path / "home"
    monkeypatch.setenv("ATTNPREP_HOME", str(home))
    state.record_check("softmax", "fail", [], None)  # the file exists before the first kill
    for round_ in range(15):
        writer = subprocess.Popen([sys.executable, "-c", WRITER], env=_env(home))
        time.sleep(0.25 + 0.02 * round_)
        writer.send_signal(signal.SIGKILL)
        writer.wait()
        text = (home / "progress.json").read_text()
        data = json.loads(text)
        assert state._valid(data)
    assert not list(home.glob("progress.json.damaged-*"))


def test_updates_survive_and_validate(tmp_path, monkeypatch):
    monkeypatch.setenv("ATTNPREP_HOME", str(tmp_path))
    state.record_start("softmax", tmp_path / "softmax.py")
    state.record_check("softmax", "fail", ["stable"], {"elapsed_s": 10.0})
    state.record_check("softmax", "pass", [], {"elapsed_s": 30.0})
    state.record_check("softmax", "pass", [], {"elapsed_s": 50.0})
    item = state.load()["exercises"]["softmax"]
    assert item["attempts"] == 3 and item["solved"] and item["first_pass_s"] == 30.0 and item["best_s"] == 30.0
    assert [h["status"] for h in item["history"]] == ["fail", "pass", "pass"]
    assert state.load()["last_started"] == "softmax"


def test_unusable_files_are_set_aside_whole(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("ATTNPREP_HOME", str(tmp_path))
    for n, raw in enumerate([b"\xff\xfe", b"[]", b"{not json", b'{"version": 99, "exercises": {}}'], start=1):
        (tmp_path / "progress.json").write_bytes(raw)
        assert state.load() == state.empty_state()
        assert "damaged" in capsys.readouterr().err
        assert not (tmp_path / "progress.json").exists()
        assert len(list(tmp_path.glob("progress.json.damaged-*"))) == n  # one copy per damaged file
    state.record_check("softmax", "fail", [], None)  # and it is rebuilt
    assert state.load()["exercises"]["softmax"]["attempts"] == 1


GOOD = {"started_at": "2026-11-29T12:00:00Z", "file": "/x/causal.py", "attempts": 3, "hints_used": 1,
        "first_pass_s": 500.0, "best_s": 500.0, "last_status": "pass", "solved": True,
        "history": [{"at": "2026-11-29T12:08:20Z", "status": "pass", "failed": [], "clock_s": 500.0}],
        "hints_shown": [0]}
DAMAGED_RECORDS = [{"attempts": "many"}, {"attempts": True}, {"started_at": "yesterday"}, {"history": [7]},
                   {"history": [{"at": "now", "status": "fail"}]}, 7, {"hints_shown": "0"}]


def test_damage_is_repaired_record_by_record_and_set_aside_once(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("ATTNPREP_HOME", str(tmp_path))
    for bad in DAMAGED_RECORDS:
        for old in tmp_path.glob("progress.json.damaged-*"):
            old.unlink()
        raw = json.dumps({"version": 1, "last_started": "causal", "future-field": [1],
                          "exercises": {"softmax": bad, "causal": GOOD}}).encode()
        (tmp_path / "progress.json").write_bytes(raw)
        data = state.load()
        err = capsys.readouterr().err
        assert "damaged (the record of `softmax`)" in err and "every other record is kept" in err, err
        assert data["exercises"]["causal"] == GOOD  # the valid record is kept whole
        assert data["exercises"]["softmax"] == state.empty_entry()  # the damaged one starts afresh
        assert data["last_started"] == "causal" and data["future-field"] == [1]
        copies = list(tmp_path.glob("progress.json.damaged-*"))
        assert [c.read_bytes() for c in copies] == [raw]
        for _ in range(3):  # repaired on disk: later reads find nothing to set aside
            assert state.load() == data
        assert capsys.readouterr().err == ""
        assert len(list(tmp_path.glob("progress.json.damaged-*"))) == 1


def test_damaged_mock_and_top_level_fields_are_reset_alone(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("ATTNPREP_HOME", str(tmp_path))
    (tmp_path / "progress.json").write_text(json.dumps(
        {"version": 1, "last_started": 7, "exercises": {"causal": GOOD}, "mock": {"slugs": "softmax"}}))
    data = state.load()
    err = capsys.readouterr().err
    assert "the exercise started last" in err and "the mock interview" in err
    assert data["exercises"]["causal"] == GOOD and data["last_started"] is None and "mock" not in data
    (tmp_path / "progress.json").write_text(json.dumps({"version": 1, "last_started": None, "exercises": []}))
    assert state.load()["exercises"] == {} and "the list of exercises" in capsys.readouterr().err


def test_damaged_record_through_the_cli(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    (home / "progress.json").write_text(json.dumps({"version": 1, "last_started": "causal",
                                                    "exercises": {"softmax": {"attempts": "many"}, "causal": GOOD}}))
    runs = [subprocess.run(["attnprep", "status", "--json"], capture_output=True, text=True, env=_env(home))
            for _ in range(2)]
    assert [r.returncode for r in runs] == [0, 0]
    assert "warning: the progress file" in runs[0].stderr and runs[1].stderr == ""
    rows = {e["slug"]: e for e in json.loads(runs[1].stdout)["exercises"]}
    assert rows["causal"]["attempts"] == 3 and rows["causal"]["state"] == "solved"
    assert rows["softmax"]["attempts"] == 0 and rows["softmax"]["state"] == "new"
    assert len(list(home.glob("progress.json.damaged-*"))) == 1
