"""Hostile and faulty candidates, each graded through the real CLI in a subprocess.

Every file in tests/hostile/ says in its header what `attnprep check --json`
must report: `# expect-status:`, and optionally `# expect-message:` (in the
report's message), `# expect-message-any:` (in any message) and
`# expect-invariant: id=status ...`.
"""

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

HOSTILE = Path(__file__).parent / "hostile"
# Cases that must time out get a short limit; the rest the default, since a
# loaded machine must not turn a slow verdict into a timeout.
SHORT, DEFAULT = 3.0, 10.0
FILES = sorted(HOSTILE.glob("*.py"))


def attnprep(*args, home, timeout=60, cwd=None):
    env = {**os.environ, "ATTNPREP_HOME": str(home)}
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "attnprep", *args], capture_output=True, env=env,
                          timeout=timeout, cwd=cwd)
    return proc, time.monotonic() - started


def headers(path):
    text = path.read_bytes().decode("utf-8", "replace")
    return {k: v.strip() for k, v in re.findall(r"^# (expect-[\w-]+): (.*)$", text, re.M)}


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_hostile_candidate(path, tmp_path):
    want = headers(path)
    limit = SHORT if want["expect-status"] == "timeout" else DEFAULT
    proc, elapsed = attnprep("check", str(path), "--json", "--timeout", str(limit), home=tmp_path)
    assert elapsed <= limit + 2, f"check took {elapsed:.1f}s"
    report = json.loads(proc.stdout)  # stdout carries exactly one JSON object: ours
    assert report["version"] == 1 and report["exercise"] == "softmax"
    assert report["status"] == want["expect-status"], report
    assert proc.returncode == (0 if want["expect-status"] == "pass" else 1)
    assert b"Traceback" not in proc.stderr
    if "expect-message" in want:
        assert want["expect-message"] in (report["message"] or ""), report["message"]
    if "expect-message-any" in want:
        messages = [report["message"] or ""] + [i["message"] or "" for i in report["invariants"]]
        assert any(want["expect-message-any"] in m for m in messages), messages
    for pair in want.get("expect-invariant", "").split():
        inv_id, status = pair.split("=")
        got = {i["id"]: i["status"] for i in report["invariants"]}
        assert got[inv_id] == status, got


def test_truly_empty_file(tmp_path):
    empty = tmp_path / "softmax.py"
    empty.write_bytes(b"")
    proc, _ = attnprep("check", str(empty), "--json", home=tmp_path)
    report = json.loads(proc.stdout)
    assert proc.returncode == 1 and report["status"] == "error" and "`softmax`" in report["message"]


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is dead for our purpose
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the orphan sweep is Linux-only")
def test_no_process_left_behind(tmp_path):
    pids = tmp_path / "pids"
    solution = tmp_path / "softmax.py"
    solution.write_text(f'''# attnprep: softmax
import os, subprocess, threading, time
import numpy as np

def _forever():
    while True:
        time.sleep(1)

threading.Thread(target=_forever).start()            # a non-daemon thread that never ends
p1 = subprocess.Popen(["sleep", "1000"])              # a plain child
p2 = subprocess.Popen(["sleep", "1000"], start_new_session=True)  # one that escapes the group
if os.fork() == 0:                                    # a double-forked daemon
    os.setsid()
    if os.fork() == 0:
        with open({str(pids)!r}, "a") as f:
            f.write(f"{{os.getpid()}}\\n")
        time.sleep(1000)
    os._exit(0)
with open({str(pids)!r}, "a") as f:
    f.write(f"{{p1.pid}}\\n{{p2.pid}}\\n")

def softmax(z, axis=-1):
    e = np.exp(z - z.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)
''')
    proc, elapsed = attnprep("check", str(solution), "--json", "--timeout", "5", home=tmp_path)
    assert json.loads(proc.stdout)["status"] == "pass"
    assert elapsed <= 7
    time.sleep(0.2)
    found = [int(p) for p in pids.read_text().split()]
    assert len(found) >= 3
    assert not [p for p in found if _alive(p)], "processes left running"


def test_candidate_cannot_damage_progress(tmp_path):
    home = tmp_path / "home"
    attnprep("start", "softmax", "--dir", str(tmp_path), home=home)
    (tmp_path / "softmax.py").write_text(f'''# attnprep: softmax
import os
for root, _, files in os.walk({str(home)!r}):
    for name in files:
        with open(os.path.join(root, name), "wb") as f:
            f.write(b"garbage")
for name in os.listdir(os.path.expanduser("~")):
    pass

def softmax(z, axis=-1):
    return z
''')
    proc, _ = attnprep("check", str(tmp_path / "softmax.py"), "--json", home=home)
    assert proc.returncode == 1
    status, _ = attnprep("status", "--json", home=home)
    assert status.returncode == 0
    data = json.loads(status.stdout)
    assert [e["slug"] for e in data["exercises"]][0] == "softmax"


def test_installed_console_script(tmp_path):
    script = Path(sys.executable).parent / "attnprep"
    assert script.exists(), "pip install did not create the attnprep console script"
    env = {**os.environ, "ATTNPREP_HOME": str(tmp_path)}
    proc = subprocess.run([str(script), "list"], capture_output=True, env=env)
    assert proc.returncode == 0 and b"softmax" in proc.stdout


def test_codec_round_trips_shapes_and_scalar_types():
    import numpy as np

    from attnprep import wire

    values = [np.asarray(5), np.arange(12.0).reshape(3, 4).T, np.float32(1.5), np.int64(7), 3, 2.5, None,
              (np.zeros((0, 3)), [1, 2]), {"a": np.ones(2, bool)}, 10**30]
    for value in values:
        blobs = []
        back = wire.decode(wire.encode(value, blobs), blobs)
        if isinstance(value, np.ndarray):
            assert back.shape == value.shape and back.dtype == value.dtype and np.array_equal(back, value)
        elif isinstance(value, np.generic):
            assert type(back) is type(value) and back == value
        elif isinstance(value, tuple):
            assert isinstance(back, tuple) and back[0].shape == (0, 3) and back[1] == [1, 2]
        elif isinstance(value, dict):
            assert back["a"].dtype == bool
        else:
            assert back == value and type(back) is type(value)


def test_console_script_end_to_end(tmp_path):
    """The installed `attnprep` script: start, refuse to overwrite, check, solution without a terminal."""
    script = str(Path(sys.executable).parent / "attnprep")
    env = {**os.environ, "ATTNPREP_HOME": str(tmp_path / "home")}

    def run(*args):
        return subprocess.run([script, *args], capture_output=True, env=env, cwd=tmp_path, stdin=subprocess.DEVNULL,
                              timeout=60)

    assert run("start", "causal").returncode == 0
    assert run("start", "causal").returncode == 2
    stub = run("check", "--json")
    assert stub.returncode == 1 and json.loads(stub.stdout)["exercise"] == "causal"
    refused = run("solution")
    assert refused.returncode == 2 and b"--yes" in refused.stderr
    assert run("hint").returncode == 0
    assert json.loads(run("status", "--json").stdout)["exercises"][1]["hints_used"] == 1
    assert run("show", "causl").returncode == 2
