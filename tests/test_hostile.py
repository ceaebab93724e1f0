"""Hostile and faulty candidates, each graded through the real CLI in a subprocess, with and without the sandbox.

Every file in tests/hostile/ says in its header what `attnprep check --json` must report: `# expect-status:`,
and optionally `# expect-message:` (in the report's message), `# expect-message-any:` (in any message) and
`# expect-invariant: id=status ...`. A file whose outcome differs without the sandbox (a documented limit of
the fallback) says so with `# expect-status-fallback:`. Each runs twice: inside bubblewrap (`--sandbox
required`, skipped where bwrap cannot start) and in the fallback (`--sandbox off`). The cases that need a
set-up of their own (a throwaway installation, a pid namespace, a terminal) are in tests/test_sandbox.py.
"""

import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hostile_tools import MODES, need, only_json, run_cli

HOSTILE = Path(__file__).parent / "hostile"
# Cases that must time out get a short limit; the rest the default, since a
# loaded machine must not turn a slow verdict into a timeout.
SHORT, DEFAULT = 3.0, 10.0
FILES = sorted(HOSTILE.glob("*.py"))


def attnprep(*args, home, timeout=60, cwd=None, mode=None):
    return run_cli(*args, home=home, mode=mode, timeout=timeout, cwd=cwd)


def headers(path):
    text = path.read_bytes().decode("utf-8", "replace")
    found = {k: v.strip() for k, v in re.findall(r"^# (expect-[\w-]+|needs): (.*)$", text, re.M)}
    found["slug"] = (re.findall(r"^# attnprep: ([\w-]+)", text, re.M) or ["softmax"])[0]
    return found


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_hostile_candidate(path, mode, tmp_path):
    need(mode)
    want = headers(path)
    if want.get("needs") == "torch" and importlib.util.find_spec("torch") is None:
        pytest.skip("a PyTorch file: torch is not installed (CI installs it)")
    status = want.get("expect-status-fallback", want["expect-status"]) if mode == "off" else want["expect-status"]
    allowed = status.split("|")  # `fail|timeout`: either ends the check, and which comes first is the machine's speed
    status = allowed[0]
    limit = SHORT if status == "timeout" else DEFAULT
    proc, elapsed = attnprep("check", str(path), "--json", "--timeout", str(limit), home=tmp_path, mode=mode)
    assert elapsed <= limit + 2, f"check took {elapsed:.1f}s"
    report = only_json(proc.stdout)  # stdout carries exactly one JSON object: ours
    assert report["version"] == 1 and report["exercise"] == want["slug"]
    assert report["status"] in allowed, report
    assert proc.returncode == (0 if report["status"] == "pass" else 1), proc.stderr
    assert b"Traceback" not in proc.stderr
    if status != want["expect-status"].split("|")[0]:
        return  # a documented limit of the fallback: the messages belong to the sandboxed outcome
    if "expect-message" in want:
        assert want["expect-message"] in (report["message"] or ""), report["message"]
    if "expect-message-any" in want:
        messages = [report["message"] or ""] + [i["message"] or "" for i in report["invariants"]]
        assert any(want["expect-message-any"] in m for m in messages), messages
    for pair in want.get("expect-invariant", "").split():
        inv_id, inv_status = pair.split("=")
        got = {i["id"]: i["status"] for i in report["invariants"]}
        assert got[inv_id] == inv_status, got


def test_truly_empty_file(tmp_path):
    empty = tmp_path / "softmax.py"
    empty.write_bytes(b"")
    proc, _ = attnprep("check", str(empty), "--json", home=tmp_path)
    report = json.loads(proc.stdout)
    assert proc.returncode == 1 and report["status"] == "error" and "`softmax`" in report["message"]


@pytest.mark.parametrize("mode", MODES)
def test_candidate_cannot_damage_progress(mode, tmp_path):
    need(mode)
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
    proc, _ = attnprep("check", str(tmp_path / "softmax.py"), "--json", home=home, mode=mode)
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
