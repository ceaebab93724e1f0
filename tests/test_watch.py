"""`attnprep watch` re-grades on every save and leaves cleanly on Ctrl-C."""

import json
import os
import pty
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

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


ATTNPREP = str(Path(sys.executable).with_name("attnprep"))  # the installed command, as a learner runs it


def test_watch_says_when_the_file_goes_and_comes_back_and_shows_load_errors(tmp_path):
    env = {**os.environ, "ATTNPREP_HOME": str(tmp_path / "home")}
    subprocess.run([ATTNPREP, "start", "softmax"], cwd=tmp_path, env=env, check=True, capture_output=True)
    target = tmp_path / "softmax.py"
    out = tmp_path / "out.txt"
    with open(out, "w") as sink:
        proc = subprocess.Popen([ATTNPREP, "watch"], cwd=tmp_path, env=env, stdout=sink, stderr=subprocess.STDOUT)
        try:
            assert _wait_for(out, "FAIL"), out.read_text()
            target.write_text("# attnprep: softmax\ndef softmax(z, axis=-1)\n    return z\n")
            assert _wait_for(out, "ERROR  could not load the file: SyntaxError on line 2"), out.read_text()
            target.unlink()
            assert _wait_for(out, "softmax.py is gone (deleted or moved); waiting for it to come back"), out.read_text()
            time.sleep(0.7)
            target.write_text(catalogue.get("softmax").solution_path.read_text())
            assert _wait_for(out, "softmax.py is back"), out.read_text()
            assert _wait_for(out, "stopped at the pass"), out.read_text()
        finally:
            proc.send_signal(signal.SIGINT)
            proc.wait(timeout=30)
    text = out.read_text()
    assert "0/0" not in text and "Traceback" not in text
    assert text.count("is gone") == 1  # said once, not at every poll
    assert re.search(r"PASS  (\d+) passed of \1 invariants; clock: \d+:\d\d of a 10:00 target, stopped at the pass",
                     text)


def test_live_watch_freezes_the_clock_at_a_pass(tmp_path):
    env = {**os.environ, "ATTNPREP_HOME": str(tmp_path / "home"), "COLUMNS": "100", "LINES": "40",
           "TERM": "xterm-256color"}
    env.pop("NO_COLOR", None)
    subprocess.run([ATTNPREP, "start", "softmax"], cwd=tmp_path, env=env, check=True, capture_output=True)
    (tmp_path / "softmax.py").write_text(catalogue.get("softmax").solution_path.read_text())
    master, slave = pty.openpty()
    proc = subprocess.Popen([ATTNPREP, "watch"], cwd=tmp_path, env=env, stdin=slave, stdout=slave, stderr=slave,
                            start_new_session=True)
    os.close(slave)
    screen, passed_at, asked_to_quit = b"", None, False
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and proc.poll() is None:
            ready, _, _ = select.select([master], [], [], 0.2)
            if ready:  # keep draining the terminal, or the watch blocks writing to it
                try:
                    screen += os.read(master, 65536)
                except OSError:
                    break
            if passed_at is None and b"stopped at the pass" in screen:
                passed_at = time.monotonic()
            if passed_at is not None and time.monotonic() - passed_at > 3.5 and not asked_to_quit:
                os.write(master, b"q")
                asked_to_quit = True
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    shown = re.findall(rb"clock: (\d+:\d\d) of a 10:00 target, stopped at the pass", screen)
    assert len(shown) > 12, screen[-2000:]  # redrawn for more than two seconds after the pass...
    assert len(set(shown)) == 1, set(shown)  # ...and never moved
