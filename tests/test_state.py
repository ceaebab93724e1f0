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


def test_damaged_shapes_are_set_aside(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("ATTNPREP_HOME", str(tmp_path))
    bad_files = [b"\xff\xfe", b"[]", b'{"version": 1, "exercises": [], "last_started": null}',
                 b'{"version": 1, "exercises": {"softmax": {"attempts": "many"}}, "last_started": null}',
                 b'{"version": 1, "exercises": {"softmax": {"started_at": "yesterday"}}, "last_started": null}',
                 b'{"version": 1, "exercises": {"softmax": {"history": [7]}}, "last_started": null}',
                 b'{"version": 1, "exercises": {"softmax": {"history": [{"at": "now", "status": "fail"}]}}, '
                 b'"last_started": null}',
                 b'{"version": 1, "exercises": {}, "last_started": null, "mock": {"slugs": "softmax"}}']
    for raw in bad_files:
        (tmp_path / "progress.json").write_bytes(raw)
        assert state.load() == state.empty_state()
        assert "damaged" in capsys.readouterr().err
        assert not (tmp_path / "progress.json").exists()
    state.record_check("softmax", "fail", [], None)  # and it is rebuilt
    assert state.load()["exercises"]["softmax"]["attempts"] == 1
