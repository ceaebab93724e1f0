"""`attnprep watch` re-grades on every save and leaves cleanly on Ctrl-C."""

import json
import os
import signal
import subprocess
import sys
import time

from attnprep import catalogue


def _wait_for(proc_out, needle, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if needle in proc_out.read_text():
            return True
        time.sleep(0.1)
    return False


def test_watch_regrades_on_save_and_stops_on_ctrl_c(tmp_path):
    env = {**os.environ, "ATTNPREP_HOME": str(tmp_path / "home")}
    subprocess.run([sys.executable, "-m", "attnprep", "start", "softmax"], cwd=tmp_path, env=env, check=True,
                   capture_output=True)
    out = tmp_path / "out.txt"
    with open(out, "w") as sink:
        proc = subprocess.Popen([sys.executable, "-m", "attnprep", "watch"], cwd=tmp_path, env=env, stdout=sink,
                                stderr=subprocess.STDOUT)
        try:
            assert _wait_for(out, "FAIL"), out.read_text()
            time.sleep(0.5)
            (tmp_path / "softmax.py").write_text(catalogue.get("softmax").solution_path.read_text())
            assert _wait_for(out, "PASS"), out.read_text()
        finally:
            proc.send_signal(signal.SIGINT)
            code = proc.wait(timeout=30)
    assert code == 0
    assert "stopped watching" in out.read_text() and "Traceback" not in out.read_text()
    status = subprocess.run([sys.executable, "-m", "attnprep", "status", "--json"], env=env, capture_output=True)
    entry = json.loads(status.stdout)["exercises"][0]
    assert entry["attempts"] >= 2 and entry["state"] == "solved"
