"""The sandbox against attacks that need a set-up of their own, each graded through the installed CLI.

Every case runs inside bubblewrap (`--sandbox required`; skipped where bwrap cannot start, which CI makes
possible) and in the fallback (`--sandbox off`). With the sandbox each attack must fail; without it, what
the README lists as the fallback's limits is asserted as such, so that the README stays true: a limit that
went away, or a new one, fails here. Cases that may change installed files run in a throwaway
installation (hostile_tools.throwaway_install), never in the development venv or the checkout.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import textwrap
import threading
import time
import uuid
from pathlib import Path

import pytest
from hostile_tools import (
    MODES,
    ROOT,
    SOLUTIONS,
    has_capability,
    is_root,
    need,
    only_json,
    pidns_available,
    run_cli,
    run_in_pidns,
    throwaway_install,
)

README = (ROOT / "README.md").read_text(encoding="utf-8")
CORRECT = (SOLUTIONS / "softmax.py").read_text(encoding="utf-8").split("\n", 1)[1]  # without the first line
WRONG = "import numpy as np\n\n\ndef softmax(z, axis=-1):\n    return np.asarray(z, dtype=float)\n"
linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux only")


def candidate(tmp: Path, body: str, *, correct: bool | None = None, slug: str = "softmax") -> Path:
    """A softmax file: `body` (hostile code at import), then a correct or wrong softmax (or none)."""
    path = tmp / f"{slug}.py"
    tail = "" if correct is None else (CORRECT if correct else WRONG)
    path.write_text(f"# attnprep: {slug}\n" + textwrap.dedent(body) + "\n" + tail, encoding="utf-8")
    return path


def documented(phrase: str) -> None:
    """A limit of the fallback that a test pins must be stated in the README."""
    assert re.sub(r"\s+", " ", phrase) in re.sub(r"\s+", " ", README), f"README must say: {phrase}"


def check(path: Path, home: Path, mode: str, *extra: str, timeout: float = 10.0, **kw):
    proc, elapsed = run_cli("check", str(path), "--json", "--timeout", str(timeout), *extra, home=home, mode=mode,
                            **kw)
    assert elapsed <= timeout + 2, f"check took {elapsed:.1f}s"
    return proc


# -- installed files: NumPy and the graders ----------------------------------------------

PAYLOAD = '''
import sys as _s
_e = _s.modules.get("attnprep.engine")
if _e is not None:
    _e._judge = lambda *a, **k: ("pass", None)
'''


@linux
@pytest.mark.parametrize("mode", MODES)
def test_patched_numpy_cannot_forge_a_pass(mode, tmp_path):
    """Prepending a payload to site-packages' numpy/random/__init__.py: the judge imported it before the file ran."""
    need(mode)
    python = throwaway_install(tmp_path)
    target = Path(subprocess.run([python, "-c", "import numpy.random as r; print(r.__file__)"], capture_output=True,
                                 text=True, check=True).stdout.strip())
    before = target.read_bytes()
    path = candidate(tmp_path, f'''
        import numpy.random, os
        for where in (numpy.random.__file__, os.path.realpath(numpy.random.__file__), {str(target)!r}):
            try:
                old = open(where).read()
                with open(where, "w") as f:
                    f.write({PAYLOAD!r} + old)
            except OSError:
                pass
        ''', correct=False)
    proc = check(path, tmp_path / "home", mode, python=python)
    assert only_json(proc.stdout)["status"] == "fail"
    if mode == "required":
        assert target.read_bytes() == before
    else:
        documented("can change the files of your installation")
        assert target.read_bytes() != before


@linux
@pytest.mark.parametrize("mode", MODES)
def test_grader_invisible_and_unchanged(mode, tmp_path):
    """The candidate looks for the installed grader and rewrites it to pass anything (in a throwaway install)."""
    need(mode)
    python = throwaway_install(tmp_path)
    data = Path(python).parent.parent / "lib"
    grader = next(data.glob("python3*/site-packages/attnprep/_data/grader/softmax.py"))
    before = grader.read_bytes()
    forged = 'FUNCTIONS = ("softmax",)\n'
    path = candidate(tmp_path, f'''
        import glob, os
        import numpy
        site = os.path.dirname(os.path.dirname(os.path.realpath(numpy.__file__)))
        found = glob.glob(os.path.join(site, "*", "_data", "grader", "softmax.py"))
        found += [{str(grader)!r}]  # never a path outside the throwaway installation: the fallback would write it
        for where in found:
            try:
                with open(where, "w") as f:
                    f.write({forged!r})
            except OSError:
                pass
        ''', correct=False)
    proc = check(path, tmp_path / "home", mode, python=python, timeout=20)
    assert only_json(proc.stdout)["status"] == "fail"
    (tmp_path / "next").mkdir()
    after = check(candidate(tmp_path / "next", "", correct=False), tmp_path / "home", mode, python=python)
    if mode == "required":
        assert grader.read_bytes() == before
        assert only_json(after.stdout)["status"] == "fail"
    else:
        documented("can change the files of your installation")
        assert grader.read_bytes() != before


@linux
@pytest.mark.parametrize("mode", MODES)
def test_references_unreadable(mode, tmp_path):
    """A file that finds and runs the reference solution would pass; inside the sandbox there is none to find."""
    need(mode)
    path = candidate(tmp_path, f'''
        import glob, os
        import numpy
        places = [{str(SOLUTIONS / "softmax.py")!r}]
        places += glob.glob(os.path.join(os.path.dirname(os.path.realpath(numpy.__file__)), "..", "attnprep", "**",
                                         "softmax.py"), recursive=True)
        for where in places:
            try:
                source = open(where).read()
            except OSError:
                continue
            exec(compile(source, where, "exec"))
            break
        ''')
    proc = check(path, tmp_path / "home", mode)
    report = only_json(proc.stdout)
    if mode == "required":
        assert report["status"] == "error" and "`softmax`" in report["message"]
    else:
        documented("could read the reference solutions")
        assert report["status"] == "pass"


# -- the progress ------------------------------------------------------------------------

# Only the parent's environment: other processes on a shared machine may run attnprep too, and a test must
# not write into their progress.
FORGE_PROGRESS = '''
import json, os
slugs = {slugs!r}
homes = set()
try:
    for item in open(f"/proc/{{os.getppid()}}/environ", "rb").read().split(b"\\0"):
        if item.startswith(b"ATTNPREP_HOME="):
            homes.add(item.split(b"=", 1)[1].decode())
except OSError:
    pass
for home in homes | {{os.environ.get("ATTNPREP_HOME", "")}} - {{""}}:
    try:
        with open(os.path.join(home, "progress.json"), "w") as f:
            json.dump({{"version": 1, "last_started": None,
                       "exercises": {{s: {{"solved": True}} for s in slugs}}}}, f)
    except OSError:
        pass
'''


@linux
@pytest.mark.parametrize("mode", MODES)
def test_progress_out_of_reach(mode, tmp_path):
    """/proc/PPID/environ (and every other process's) searched for ATTNPREP_HOME, then all exercises marked solved."""
    need(mode)
    home = tmp_path / "home"
    slugs = [e["slug"] for e in json.loads(run_cli("status", "--json", home=home, mode=None)[0].stdout)["exercises"]]
    path = candidate(tmp_path, FORGE_PROGRESS.format(slugs=slugs), correct=False)
    proc = check(path, home, mode)
    assert only_json(proc.stdout)["status"] == "fail"
    states = {e["slug"]: e["state"] for e in json.loads(run_cli("status", "--json", home=home, mode=None)[0].stdout)[
        "exercises"]}
    if mode == "required" or not has_capability(19):  # CAP_SYS_PTRACE, which root usually holds
        assert "solved" not in states.values(), states
    else:
        documented("as root it can read attnprep's own environment")
        assert states["mha"] == "solved"


# -- the parent: signals and its stdout -----------------------------------------------------

# The parent and every ancestor the file can see (run in a pid namespace of the test's own: nothing else).
HIT_PARENT = '''
import os, signal
def _hit():
    targets, pid = set(), os.getppid()
    while pid > 1:
        targets.add(pid)
        try:
            stat = open(f"/proc/{{pid}}/stat").read()
            pid = int(stat[stat.rfind(")") + 2:].split()[1])
        except (OSError, ValueError):
            break
    for pid in targets - {{os.getpid(), 0}}:
        try:
            os.kill(pid, signal.{sig})
        except OSError:
            pass
_hit()
'''


@linux
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("sig", ["SIGKILL", "SIGSTOP"])
def test_parent_cannot_be_signalled(sig, mode, tmp_path):
    """SIGKILL or SIGSTOP sent to the parent (and to anything named attnprep) at import."""
    need(mode)
    if not pidns_available():
        pytest.skip("needs unshare")
    path = candidate(tmp_path, HIT_PARENT.format(sig=sig), correct=False)
    result = run_in_pidns("check", str(path), "--json", "--timeout", "5", home=tmp_path / "home", mode=mode,
                          tmp=tmp_path, limit=15)
    if mode == "required":
        assert result["left"] == [], result["left"]
        assert result["elapsed"] <= 7 and not result["timed_out"]
        assert only_json(result["stdout"])["status"] == "fail"
    else:
        documented("can stop or kill attnprep itself")
        if sig == "SIGKILL":
            assert result["rc"] == -9 and result["stdout"] == ""
        else:
            assert result["timed_out"] and result["stdout"] == ""


FORGE_STDOUT = '''
import os
report = '{{"version": 1, "exercise": "softmax", "status": "pass", "invariants": [], "forged": true}}\\n'
for fd in (1, 2):
    try:
        with open(f"/proc/{{os.getppid()}}/fd/{{fd}}", "w") as f:
            f.write(report)
    except OSError:
        pass
'''


@linux
@pytest.mark.parametrize("mode", MODES)
def test_parent_stdout_unreachable(mode, tmp_path):
    """A forged report written into the parent's stdout through /proc/PPID/fd/1."""
    need(mode)
    path = candidate(tmp_path, FORGE_STDOUT.format(), correct=False)
    proc = check(path, tmp_path / "home", mode)
    if mode == "required" or not has_capability(19):
        assert only_json(proc.stdout)["status"] == "fail"  # one JSON object, ours (it may quote what the file printed)
        assert b'"forged": true' not in proc.stdout + proc.stderr
    else:
        documented("as root it can also write into attnprep's own output")
        assert b'"forged": true' in proc.stdout


# -- processes left behind and the terminal ---------------------------------------------------

LEAVE_PROCESSES = '''
import os, subprocess, threading, time

def _forever():
    while True:
        time.sleep(1)

threading.Thread(target=_forever).start()                          # a non-daemon thread that never ends
subprocess.Popen(["sleep", "1000"])                                 # a plain child
subprocess.Popen(["sleep", "1000"], start_new_session=True)         # one that escapes the group
if os.fork() == 0:                                                  # a double-forked daemon
    os.setsid()
    if os.fork() == 0:
        time.sleep(1000)
    os._exit(0)
if os.fork() == 0:                                                  # a chain of setsid children, forever
    while True:
        os.setsid()
        time.sleep(0.02)
        if os.fork():
            os._exit(0)
'''


@linux
@pytest.mark.parametrize("mode", MODES)
def test_no_process_left_behind(mode, tmp_path):
    need(mode)
    if not pidns_available():
        pytest.skip("needs unshare")
    path = candidate(tmp_path, LEAVE_PROCESSES, correct=True)
    result = run_in_pidns("check", str(path), "--json", "--timeout", "5", home=tmp_path / "home", mode=mode,
                          tmp=tmp_path)
    assert only_json(result["stdout"])["status"] == "pass"
    assert result["elapsed"] <= 7
    assert result["left"] == [], result["left"]


WRITE_LATE = '''
import os, time
watched = os.getppid()
if os.fork() == 0:
    os.setsid()
    while os.path.exists(f"/proc/{watched}"):  # attnprep, or in the sandbox its pid 1, which outlives us
        time.sleep(0.02)
    time.sleep(0.2)
    for where in ["/dev/tty", f"/proc/{watched}/fd/1", TERMINAL]:  # only the test's own terminal
        try:
            with open(where, "w") as f:
                f.write("LATE\\n")
        except OSError:
            pass
    os.write(1, b"LATE\\n")
    os._exit(0)
'''


@linux
@pytest.mark.parametrize("mode", MODES)
def test_nothing_reaches_the_terminal_after_check(mode, tmp_path):
    """A daemon that waits for attnprep to exit, then writes to the terminal: it is gone before that."""
    need(mode)
    import pty
    import select as select_

    master, slave = pty.openpty()
    path = candidate(tmp_path, f"TERMINAL = {os.ttyname(slave)!r}\n" + WRITE_LATE, correct=True)
    env = {**os.environ, "ATTNPREP_HOME": str(tmp_path / "home")}

    def as_terminal():
        import fcntl
        import termios

        os.setsid()
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    proc = subprocess.Popen([sys.executable, "-m", "attnprep", "check", str(path), "--timeout", "10", "--sandbox",
                             mode], stdin=slave, stdout=slave, stderr=slave, env=env, preexec_fn=as_terminal)
    os.close(slave)
    seen, until = b"", None
    while until is None or time.monotonic() < until:
        ready, _, _ = select_.select([master], [], [], 0.05)
        if ready:
            try:
                seen += os.read(master, 4096)
            except OSError:  # every writer has closed the terminal
                time.sleep(0.05)
        if until is None and proc.poll() is not None:
            until = time.monotonic() + 1.5  # the daemon writes 0.2 s after attnprep has exited, if it is alive
    os.close(master)
    assert proc.returncode == 0, seen.decode(errors="replace")
    assert b"LATE" not in seen, seen


# -- limits ------------------------------------------------------------------------------------

RAISE_LIMITS = '''
import resource
for name in ("RLIMIT_AS", "RLIMIT_CPU", "RLIMIT_NPROC", "RLIMIT_FSIZE"):
    limit = getattr(resource, name)
    for value in ((resource.RLIM_INFINITY, resource.RLIM_INFINITY), (resource.getrlimit(limit)[1],) * 2):
        try:
            resource.setrlimit(limit, value)
        except (ValueError, OSError):
            pass
import numpy as np
try:
    big = np.empty(5 * 2**30, dtype=np.uint8)   # 5 GiB of address space, never touched
    ESCAPED = True
except MemoryError:
    ESCAPED = False

def softmax(z, axis=-1):
    if not ESCAPED:
        raise MemoryError("the memory limit held")
    z = np.asarray(z, dtype=np.float64)
    e = np.exp(z - z.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)
'''


@linux
@pytest.mark.parametrize("mode", MODES)
def test_hard_limits_cannot_be_raised(mode, tmp_path):
    need(mode)
    path = candidate(tmp_path, RAISE_LIMITS)
    report = only_json(check(path, tmp_path / "home", mode).stdout)
    if mode == "required" or not has_capability(24):  # CAP_SYS_RESOURCE, which root usually holds
        assert report["status"] == "fail" and "the memory limit held" in json.dumps(report)
    else:
        documented("as root it can raise its own limits")
        assert report["status"] == "pass"


MANY_CHILDREN = '''
import os, time
FORKED = 0
for _ in range(150):
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        time.sleep(1000)
        os._exit(0)
    FORKED += 1
'''


@linux
@pytest.mark.parametrize("mode", MODES)
def test_children_are_capped_or_swept(mode, tmp_path):
    """150 children: capped where a cgroup or the sandbox's process limit applies, and all gone after the check."""
    need(mode)
    if not pidns_available():
        pytest.skip("needs unshare")
    path = candidate(tmp_path, MANY_CHILDREN + "\nif FORKED >= 150:\n    raise RuntimeError('not capped')\n"
                     + CORRECT)
    result = run_in_pidns("check", str(path), "--json", "--timeout", "10", home=tmp_path / "home", mode=mode,
                          tmp=tmp_path)
    assert result["left"] == [], result["left"]
    report = only_json(result["stdout"])
    capped = report["status"] == "pass"
    if mode == "required" and not is_root():
        assert capped
    elif not capped:
        documented("the number of processes is not capped")


@linux
@pytest.mark.parametrize("mode", MODES)
def test_dev_shm_is_private(mode, tmp_path):
    need(mode)
    names = [f"/dev/shm/attnprep-test-{uuid.uuid4().hex}-{i}" for i in range(3)]
    path = candidate(tmp_path, f'''
        for name in {names!r}:
            try:
                with open(name, "wb") as f:
                    f.write(b"x" * 30 * 2**20)
            except OSError:
                pass
        ''', correct=True)
    try:
        report = only_json(check(path, tmp_path / "home", mode).stdout)
        assert report["status"] == "pass"
        left = [n for n in names if os.path.exists(n)]
        if mode == "required":
            assert left == []
        else:
            documented("files it leaves in /dev/shm")
            assert left
    finally:
        for name in names:
            if os.path.exists(name):
                os.unlink(name)


@linux
@pytest.mark.parametrize("mode", MODES)
def test_no_network(mode, tmp_path):
    need(mode)
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(5)
    server.settimeout(0.2)
    port = server.getsockname()[1]
    accepted = []

    def serve():
        end = time.monotonic() + 30
        while time.monotonic() < end and not accepted:
            try:
                conn, _ = server.accept()
                accepted.append(conn.recv(100))
                conn.close()
            except OSError:
                pass

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    path = candidate(tmp_path, f'''
        import socket
        try:
            with socket.create_connection(("127.0.0.1", {port}), timeout=2) as s:
                s.sendall(b"leaked")
        except OSError:
            pass
        ''', correct=True)
    report = only_json(check(path, tmp_path / "home", mode).stdout)
    time.sleep(0.3)
    done = list(accepted)
    accepted.append(b"")  # ends the server's loop
    thread.join(5)
    server.close()
    assert report["status"] == "pass"
    if mode == "required":
        assert done == []
    else:
        documented("reach the network")
        assert done == [b"leaked"]


# -- the worker does not announce itself -------------------------------------------------------

ANNOUNCE = '''
import inspect, os, sys
def _announced():
    word = "attnprep"
    places = [os.getcwd(), os.environ.get("HOME", ""), repr(sorted(os.environ.items())), repr(sys.argv),
              repr(getattr(sys, "orig_argv", [])), repr(sys.path), sys.executable, repr(sorted(sys.modules))]
    places += [str(getattr(m, "__file__", "")) for m in list(sys.modules.values())]
    for frame in inspect.stack():
        places += [frame.filename, frame.function]
    return [p for p in places if word in p.lower()]

FOUND_AT_IMPORT = _announced()
'''


@pytest.mark.parametrize("mode", MODES)
def test_command_line_looks_like_python_file(mode, tmp_path):
    """sys.argv is what `python softmax.py` gives: a file that behaves only when its argv looks like a worker's
    (`-c` and pipe numbers) would otherwise be right only while graded."""
    need(mode)
    path = candidate(tmp_path, """
        import sys
        GRADED = sys.argv[0] == "-c" or len(sys.argv) > 1 or "-c" in getattr(sys, "orig_argv", [])
    """, correct=True)
    path.write_text(path.read_text().replace("    return e / np.sum", "    if not GRADED:\n        return z\n"
                                             "    return e / np.sum"))
    assert "if not GRADED" in path.read_text()
    report = only_json(check(path, tmp_path / "home", mode).stdout)
    assert report["status"] == "fail", report


@linux
@pytest.mark.parametrize("mode", MODES)
def test_worker_does_not_announce_itself(mode, tmp_path):
    """No 'attnprep' in sys.modules, the call stack's files and functions, cwd, HOME or the environment."""
    need(mode)
    base = tmp_path / "place"
    (base / "attnprep-install").mkdir(parents=True)
    python = throwaway_install(base / "attnprep-install")
    work = base / "attnprep-work"  # the directory attnprep is run from; the file itself sits elsewhere
    (base / "mine").mkdir()
    work.mkdir()
    path = candidate(base / "mine", ANNOUNCE + '''
import numpy as np
def softmax(z, axis=-1):
    found = FOUND_AT_IMPORT + _announced()
    if found:
        raise RuntimeError("announced: " + repr(found[:3]))
    z = np.asarray(z, dtype=np.float64)
    e = np.exp(z - z.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)
''')
    env = {"PATH": f"{Path(python).parent}:{os.environ.get('PATH', '')}", "HOME": str(base / "attnprep-user"),
           "ATTNPREP_SOMETHING": "1"}
    report = only_json(check(path, base / "attnprep-home", mode, python=python, cwd=work, env=env).stdout)
    assert report["status"] == "pass", json.dumps(report)[:1500]


# -- memory measured where the candidate cannot touch it ------------------------------------------

LEAN_FLASH = '''

def lean(q, k, v, block_size, causal):
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    T, d = q.shape
    out = np.empty((T, v.shape[1]))
    for i in range(0, T, block_size):
        s = q[i:i + block_size] @ k.T / np.sqrt(d)
        if causal:
            rows = np.arange(i, min(i + block_size, T))[:, None]
            s = np.where(np.arange(T)[None, :] > rows, -np.inf, s)
        w = np.exp(s - s.max(axis=1, keepdims=True))
        out[i:i + block_size] = (w / w.sum(axis=1, keepdims=True)) @ v
    return out
'''

DENSE_FLASH = '''
import numpy as np, tracemalloc

def flash_attention(q, k, v, block_size=64, causal=False):
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    s = q @ k.T / np.sqrt(q.shape[1])
    if causal:
        s = np.where(np.triu(np.ones(s.shape, dtype=bool), 1), -np.inf, s)
    w = np.exp(s - s.max(axis=1, keepdims=True))
    out = (w / w.sum(axis=1, keepdims=True)) @ v
    del s, w
    {hide}
    return out
'''


@linux
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("hide", ["reset_peak", "stop", "clear_refs", "only_when_traced"])
def test_memory_is_measured_outside(hide, mode, tmp_path):
    """A dense flash_attention that hides its T x T matrix from tracemalloc, resets the kernel's mark, or is
    dense only while tracemalloc is not running (so it would be lean whenever tracemalloc measured it)."""
    need(mode)
    hiding = {"reset_peak": "tracemalloc.reset_peak()", "stop": "tracemalloc.stop()",
              "clear_refs": "tracemalloc.reset_peak()\n    "
                            "try:\n        open('/proc/self/clear_refs', 'w').write('5')\n"
                            "    except OSError:\n        pass", "only_when_traced": "pass"}[hide]
    source = DENSE_FLASH.format(hide=hiding)
    if hide == "only_when_traced":
        source = source.replace("    q, k, v = (np.asarray", "    if tracemalloc.is_tracing():\n"
                                "        return lean(q, k, v, block_size, causal)\n    q, k, v = (np.asarray", 1)
        source += LEAN_FLASH
    path = candidate(tmp_path, source, slug="flash")
    report = only_json(check(path, tmp_path / "home", mode, timeout=30).stdout)
    memory = {i["id"]: i for i in report["invariants"]}["memory"]
    if hide == "clear_refs" and mode == "off":
        documented("reset the kernel's count of its peak memory")
        # Not guaranteed either way: the reset hides the peak at T = 4,096, and whatever of the matrix is still
        # held at the end of the call shows anyway (it does at T = 1,000 here).
        assert memory["status"] in ("pass", "fail"), memory
        assert memory["status"] == "pass" or "MiB more memory" in memory["message"], memory
    else:
        assert memory["status"] == "fail", memory
        assert "MiB more memory" in memory["message"]


# -- the judge's own imports ---------------------------------------------------------------------

LATE_IMPORTS = r"""
import json, os, runpy, sys
import attnprep.runner as runner
seen = {}
original = runner.Worker.request

def request(self, header, blobs, deadline):
    if header.get("op") == "load" and "before" not in seen:
        seen["before"] = set(sys.modules)
    return original(self, header, blobs, deadline)

runner.Worker.request = request
sys.argv = ["attnprep", *sys.argv[2:]]


def record():
    late = sorted(set(sys.modules) - seen.get("before", set(sys.modules)))
    with open(OUT, "w") as f:
        json.dump(late, f)


exit_now = os._exit  # attnprep ends with os._exit (no interpreter teardown): record just before it
os._exit = lambda code: (record(), exit_now(code))
try:
    runpy.run_module("attnprep", run_name="__main__")
except SystemExit:
    pass
record()
"""


SLUGS = sorted(p.name for p in (ROOT / "tests" / "corpus").iterdir() if p.is_dir())


@pytest.mark.parametrize("slug,which", [("softmax", "solution")] + [(slug, "wrong") for slug in SLUGS])
def test_judge_imports_nothing_after_the_candidate_loads(slug, which, tmp_path):
    """Without the sandbox a candidate may rewrite installed modules: everything the judge runs is imported first.

    A wrong solution of every exercise, so that the diagnosis runs too.
    """
    if which == "solution":
        source = SOLUTIONS / f"{slug}.py"
    else:
        source = sorted((ROOT / "tests" / "corpus" / slug).glob("wrong_*.py"))[-1]
    out = tmp_path / "late.json"
    code = LATE_IMPORTS.replace("OUT", repr(str(out)))
    subprocess.run([sys.executable, "-c", code, "-", "check", str(source), "--exercise", slug, "--sandbox", "off"],
                   capture_output=True, env={**os.environ, "ATTNPREP_HOME": str(tmp_path / "home")}, timeout=120)
    late = json.loads(out.read_text())
    assert late == [], f"imported after the candidate loaded: {late}"


# -- choosing the sandbox --------------------------------------------------------------------------

def test_required_without_bwrap_is_a_usage_error(tmp_path):
    proc, _ = run_cli("check", str(SOLUTIONS / "softmax.py"), "--exercise", "softmax", home=tmp_path,
                      mode="required", env={"ATTNPREP_BWRAP": ""})
    assert proc.returncode == 2 and b"error:" in proc.stderr and b"hint:" in proc.stderr
    assert proc.stdout == b""
    folder = tmp_path / "class"
    folder.mkdir()
    (folder / "a.py").write_text((SOLUTIONS / "softmax.py").read_text())
    graded, _ = run_cli("grade", str(folder), "--exercise", "softmax", home=tmp_path, mode=None,
                        env={"ATTNPREP_BWRAP": ""})
    assert graded.returncode == 2 and b"--sandbox off" in graded.stderr  # grade defaults to required



def test_required_with_a_bwrap_that_cannot_set_up_is_a_usage_error(tmp_path):
    """`check` starts no trial bwrap (it would cost every check ~30 ms): its worker's own start finds out."""
    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n")
    fake.chmod(0o755)
    home = tmp_path / "home"
    proc, _ = run_cli("check", str(SOLUTIONS / "softmax.py"), "--exercise", "softmax", "--json", home=home,
                      mode="required", env={"ATTNPREP_BWRAP": str(fake)})
    assert proc.returncode == 2 and proc.stdout == b""
    said = b" ".join(proc.stderr.split())
    assert b"error:" in said and b"uid map" in said and b"hint:" in said and b"Traceback" not in said
    assert not (home / "progress.json").exists() or b'"softmax"' not in (home / "progress.json").read_bytes()

def test_auto_falls_back_and_says_so_once(tmp_path):
    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to create a new namespace' >&2\nexit 1\n")
    fake.chmod(0o755)
    proc, _ = run_cli("check", str(SOLUTIONS / "softmax.py"), "--exercise", "softmax", "--json", home=tmp_path,
                      mode="auto", env={"ATTNPREP_BWRAP": str(fake)})
    assert proc.returncode == 0 and only_json(proc.stdout)["status"] == "pass"
    said = b" ".join(proc.stderr.split())  # rich wraps lines at 80 columns
    assert said.count(b"without a sandbox") == 1
    assert b"No permissions to create a new namespace" in said
    off, _ = run_cli("check", str(SOLUTIONS / "softmax.py"), "--exercise", "softmax", home=tmp_path, mode="off")
    assert off.returncode == 0 and off.stderr.count(b"without a sandbox") == 1


def test_sandboxed_check_says_nothing_about_it(tmp_path):
    need("required")
    proc, _ = run_cli("check", str(SOLUTIONS / "softmax.py"), "--exercise", "softmax", "--json", home=tmp_path,
                      mode="auto")
    assert proc.returncode == 0 and b"sandbox" not in proc.stderr


# -- the parent's memory --------------------------------------------------------------------------

# The parent's own high-water mark: VmHWM belongs to this address space. Not ru_maxrss, which a process
# started by vfork and exec inherits from its starter (here a pytest worker that may have held a GiB).
PARENT_PEAK = r"""
import os, runpy, sys
sys.argv = ["attnprep", *sys.argv[2:]]


def record():
    status = open("/proc/self/status").read()
    open(OUT, "w").write(status.split("VmHWM:")[1].split()[0])


exit_now = os._exit  # attnprep ends with os._exit (no interpreter teardown): record just before it
os._exit = lambda code: (record(), exit_now(code))
try:
    runpy.run_module("attnprep", run_name="__main__")
except SystemExit:
    pass
record()
"""


@linux
@pytest.mark.parametrize("mode", MODES)
def test_parent_memory_stays_within_budget(mode, tmp_path):
    """A 512 MiB bool array, and one forged past the worker's check: the parent never holds them as float64."""
    need(mode)
    out = tmp_path / "peak"
    for name in ("bool_array.py", "bool_array_forged.py"):
        code = PARENT_PEAK.replace("OUT", repr(str(out)))
        # A long --timeout: what is judged here is the parent's memory, not the machine's speed.
        proc = subprocess.run([sys.executable, "-c", code, "-", "check", str(ROOT / "tests" / "hostile" / name),
                               "--json", "--timeout", "60", "--sandbox", mode], capture_output=True, timeout=180,
                              env={**os.environ, "ATTNPREP_HOME": str(tmp_path / "home")})
        assert only_json(proc.stdout)["status"] == "fail"
        assert int(out.read_text()) * 1024 < 2**30, f"{name}: the parent peaked at {int(out.read_text()) >> 10} MiB"


# -- cgroup v2, where one can be had ---------------------------------------------------------------

def test_cgroup_caps_the_tree_where_delegated(tmp_path, monkeypatch):
    """Against a stand-in for a delegated cgroup v2 directory (this code's real run needs such a host)."""
    from attnprep import sandbox

    base = tmp_path / "cg"
    base.mkdir()
    (base / "cgroup.controllers").write_text("memory pids\n")
    real_mkdir, real_rmdir = Path.mkdir, Path.rmdir

    def mkdir(self, *a, **k):  # the kernel gives a new cgroup its control files
        real_mkdir(self, *a, **k)
        if self.parent == base:
            for name in ("memory.max", "pids.max", "memory.peak", "cgroup.procs", "cgroup.kill"):
                (self / name).write_text("0\n")

    def rmdir(self):
        if self.parent == base:
            for f in self.iterdir():
                f.unlink()
        real_rmdir(self)

    monkeypatch.setattr(Path, "mkdir", mkdir)
    monkeypatch.setattr(Path, "rmdir", rmdir)
    monkeypatch.setattr(sandbox, "_own_cgroup", lambda root: base)
    monkeypatch.setitem(sandbox._cgroup_state, "reason", None)
    group = sandbox.Cgroup.create(memory_bytes=123, processes=7, root=base)
    assert group is not None and group.path.parent == base
    assert "attnprep" not in group.path.name  # the candidate may read /proc/self/cgroup
    assert (group.path / "memory.max").read_text() == "123" and (group.path / "pids.max").read_text() == "7"
    assert group.add(4242) and (group.path / "cgroup.procs").read_text() == "4242"
    (group.path / "memory.peak").write_text("5000\n")
    assert group.peak() == 5000
    group.kill()
    assert (group.path / "cgroup.kill").read_text() == "1"
    group.remove()
    assert not group.path.exists()


def test_no_cgroup_without_delegation(tmp_path, monkeypatch):
    from attnprep import sandbox

    base = tmp_path / "cg"
    base.mkdir()
    (base / "cgroup.controllers").write_text("")
    monkeypatch.setattr(sandbox, "_own_cgroup", lambda root: base)
    monkeypatch.setitem(sandbox._cgroup_state, "reason", None)
    assert sandbox.Cgroup.create(root=base) is None
    assert "not delegated" in sandbox.cgroup_reason()
    assert [p for p in base.iterdir() if p.is_dir()] == []  # the attempt left no cgroup behind


# -- cgroup v1 (separate memory and pids hierarchies), as root ---------------------------------------

def _v1_host() -> bool:
    from attnprep import sandbox

    bases = sandbox._own_cgroups_v1(sandbox.CGROUP_ROOT)
    return bool(bases) and all(os.access(p, os.W_OK) for p in bases.values())


@linux
@pytest.mark.skipif(not _v1_host(), reason="needs a cgroup v1 host with writable memory and pids hierarchies (root)")
def test_cgroup_v1_caps_processes_and_memory_of_the_tree(monkeypatch):
    """On a real cgroup v1 host: the pids cap stops a fork loop, the memory cap is set, and kill ends the tree."""
    import subprocess
    import sys

    from attnprep import sandbox

    monkeypatch.setitem(sandbox._cgroup_state, "reason", None)
    group = sandbox.Cgroup.create(memory_bytes=256 * 2**20, processes=5)
    assert group is not None and group.version == 1, sandbox.cgroup_reason()
    assert "attnprep" not in str(group.path)  # the candidate may read /proc/self/cgroup
    forker = ("import os, sys, time\nsys.stdin.readline()\nmade = 0\nfor _ in range(20):\n    try:\n"
              "        if os.fork() == 0:\n            time.sleep(30)\n            os._exit(0)\n        made += 1\n"
              "    except OSError:\n        break\nprint(made, flush=True)\ntime.sleep(30)\n")
    proc = subprocess.Popen([sys.executable, "-c", forker], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert group.add(proc.pid)
        assert int((group.path / "memory.limit_in_bytes").read_text()) == 256 * 2**20
        proc.stdin.write("go\n")
        proc.stdin.flush()
        made = int(proc.stdout.readline())
        assert made == 4  # the forker itself is the fifth
        assert len(group.pids()) == 5
    finally:
        group.kill()
        proc.wait(timeout=10)
        group.remove()
    assert not any(p.exists() for p in group.paths)


# -- the worker the entry point starts before the command line is read -----------------------------------

@linux
@pytest.mark.parametrize("case", ["taken", "other-sandbox-mode", "other-timeout", "usage-error", "help"])
def test_the_early_worker_is_used_or_ended_and_never_left_behind(case, tmp_path):
    """`attnprep check` starts a NumPy worker before typer parses its options (launch.py); a check that needs
    another (a --timeout, another sandbox mode) or none (a usage error, --help) ends it."""
    if not pidns_available():
        pytest.skip("needs unshare")
    path = SOLUTIONS / "softmax.py"
    args, mode = {"taken": (["check", str(path), "-e", "softmax", "--json"], "auto"),
                  "other-sandbox-mode": (["check", str(path), "-e", "softmax", "--json"], "off"),
                  "other-timeout": (["check", str(path), "-e", "softmax", "--json", "--timeout", "7"], "auto"),
                  "usage-error": (["check", str(tmp_path / "missing.py"), "-e", "softmax"], "auto"),
                  "help": (["check", "--help"], "auto")}[case]
    result = run_in_pidns(*args, home=tmp_path / "home", mode=mode, tmp=tmp_path, limit=30)
    assert result["left"] == [], result["left"]
    assert result["rc"] == (2 if case == "usage-error" else 0), result["stderr"]
    if "--json" in args:
        assert only_json(result["stdout"])["status"] == "pass"


def test_take_early_gives_the_worker_only_when_it_is_the_one_needed():
    from attnprep import runner, sandbox

    before = sandbox.mode()
    try:
        sandbox.set_mode("auto")
        runner.start_early(runner.cpu_limit(10.0))
        early = runner._early[0]
        assert runner.take_early(runner.cpu_limit(10.0), "numpy") is early and runner._early is None
        early.kill()
        others = ((runner.cpu_limit(5.0), "numpy", "auto"), (runner.cpu_limit(10.0), "torch", "auto"),
                  (runner.cpu_limit(10.0), "numpy", "off"))
        for cpu, framework, mode in others:
            sandbox.set_mode("auto")
            runner.start_early(runner.cpu_limit(10.0))
            early = runner._early[0]
            sandbox.set_mode(mode)
            assert runner.take_early(cpu, framework) is None and not early.alive
        runner.start_early(runner.cpu_limit(10.0))
        early = runner._early[0]
        runner.drop_early()
        assert not early.alive and runner._early is None
    finally:
        sandbox.set_mode(before)


# -- what a check does while its worker boots ------------------------------------------------------

class _BootingWorker:
    """A stand-in for runner.Worker: up after `up_after` calls of booted(); wait_ready may end unsandboxed."""

    def __init__(self, sandboxed: bool, up_after: int, falls_back: bool = False) -> None:
        self.sandboxed, self.up_after, self.falls_back = sandboxed, up_after, falls_back
        self.asked = 0
        self.boot_s = 0.0

    def booted(self) -> bool:
        self.asked += 1
        return self.asked > self.up_after

    def wait_ready(self, deadline: float) -> None:
        if self.falls_back:
            self.sandboxed = False


def _session_with(worker, steps: int) -> tuple[object, list[int]]:
    from attnprep import engine

    taken: list[int] = []
    session = engine.Session("", "f.py", [], worker)
    session.later = [lambda i=i: taken.append(i) for i in range(steps)]
    return session, taken


def test_inside_the_sandbox_the_judge_imports_while_the_worker_boots_and_stops_when_it_is_up():
    session, taken = _session_with(_BootingWorker(sandboxed=True, up_after=2), steps=5)
    session._wait_ready()
    assert taken == [0, 1] and len(session.later) == 3  # the rest is imported when first used


def test_without_the_sandbox_every_import_comes_before_the_candidate_loads():
    session, taken = _session_with(_BootingWorker(sandboxed=False, up_after=0), steps=5)
    session._wait_ready()
    assert taken == [0, 1, 2, 3, 4] and not session.later
    # A sandbox that failed to start: the worker it falls back to is a plain process.
    session, taken = _session_with(_BootingWorker(sandboxed=True, up_after=1, falls_back=True), steps=5)
    session._wait_ready()
    assert taken == [0, 1, 2, 3, 4] and not session.later


def test_booted_says_when_the_worker_is_up_and_its_processes_are_placed_once(monkeypatch):
    from attnprep import runner, sandbox

    added: list[int] = []
    original = sandbox.Cgroup.add
    monkeypatch.setattr(sandbox.Cgroup, "add", lambda self, pid: added.append(pid) or original(self, pid))
    worker = runner.Worker()
    try:
        end = time.monotonic() + 30
        while not worker.booted() and time.monotonic() < end:
            time.sleep(0.005)
        assert worker.booted() and not worker.ready
        worker.wait_ready(time.monotonic() + 30)
        assert worker.booted()
        if worker.cgroup is not None:  # moved once each, by the thread that places them while it boots
            assert added and len(added) == len(set(added)), added
    finally:
        worker.kill()
