"""`grade`'s fork server: a forked worker grades as a cold one, and no file reaches the file graded after it."""

from pathlib import Path

import pytest
from hostile_tools import need

from attnprep import batch, catalogue, forkserver, sandbox

SOFTMAX = """
import numpy as np

def softmax(x, axis=-1):
    x = np.asarray(x, dtype=float)
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)
"""
# The file graded next: a correct softmax that fails every call if it finds anything the last file left,
# a file in the sandbox's writable places or a process besides its own ancestors.
INSPECTOR = """
import os

def _leftovers():
    files = [os.path.join(d, n) for d in ("/tmp", os.path.expanduser("~"), "/dev/shm") for n in os.listdir(d)]
    mine = {1, os.getpid(), os.getppid()}
    others = [p for p in os.listdir("/proc") if p.isdigit() and int(p) not in mine]
    ipc = [f"{kind} {row.split()[1]}" for kind in ("shm", "sem", "msg")
           for row in open(f"/proc/sysvipc/{kind}").read().splitlines()[1:]]
    return files + [f"pid {p}" for p in others] + ipc

LEFT = _leftovers()
""" + SOFTMAX.replace("    x = np.asarray",
                      "    if LEFT:\n        raise RuntimeError(f'left behind: {LEFT}')\n    x = np.asarray")

HOSTILE = {
    "litter": """
import os
for d in ("/tmp", os.path.expanduser("~"), "/dev/shm"):
    open(os.path.join(d, "planted.py"), "w").write("x = 1")
    os.makedirs(os.path.join(d, "deep", "er"), exist_ok=True)
    os.chmod(os.path.join(d, "deep"), 0)
""",
    "daemon": """
import os, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        time.sleep(60)
    os._exit(0)
""",
    "ipc": """
import ctypes
libc = ctypes.CDLL(None)
assert libc.shmget(0, 1 << 20, 0o1600) >= 0  # IPC_PRIVATE, IPC_CREAT | 0600: outlives its maker
assert libc.semget(0, 1, 0o1600) >= 0
assert libc.msgget(0, 0o1600) >= 0
""",
    "kills_its_parent": """
import os, signal
os.kill(os.getppid(), signal.SIGKILL)
""",
    "stops_its_parent": """
import os, signal
os.kill(os.getppid(), signal.SIGSTOP)
""",
}


@pytest.fixture
def required_sandbox():
    need("required")
    before = sandbox.mode()
    sandbox.set_mode("required")
    yield
    sandbox.set_mode(before)


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / f"{name}.py"
    path.write_text(text)
    return path


@pytest.mark.parametrize("attack", sorted(HOSTILE))
def test_what_a_file_does_never_reaches_the_next_one(attack, required_sandbox, tmp_path):
    ex = catalogue.get("softmax")
    files = [_write(tmp_path, f"a_{attack}", HOSTILE[attack] + SOFTMAX), _write(tmp_path, "b_next", INSPECTOR),
             _write(tmp_path, "c_after", INSPECTOR)]
    reports = batch.grade_all(ex, files, jobs=1, timeout=10, seed=0, fork=True)
    assert [r.status for r in reports[1:]] == ["pass", "pass"], [r.to_dict() for r in reports[1:]]
    if attack in ("litter", "daemon", "ipc", "stops_its_parent"):
        assert reports[0].status == "pass"  # its own verdict is its own: these do not break its answers


def test_a_forked_worker_grades_as_a_cold_one(required_sandbox, tmp_path):
    from corpus import cases

    ex = catalogue.get("softmax")
    mine = [c for c in cases() if c.slug == "softmax" and not c.path.name.startswith("torch_")]
    files = [c.path for c in [c for c in mine if c.passes][:3] + [c for c in mine if c.diagnosis][:3]]
    files.append(_write(tmp_path, "syntax", "def softmax(z, axis=-1)\n    return z\n"))
    hostile = Path(__file__).parent / "hostile"
    files += [hostile / f"{name}.py" for name in ("segfault", "os_exit_call", "patch_numpy", "output_flood")]
    forked = batch.grade_all(ex, files, jobs=2, timeout=10, seed=3, fork=True)
    cold = batch.grade_all(ex, files, jobs=2, timeout=10, seed=3, warm=False)

    def verdict(report):
        return report.status, [(i.id, i.status) for i in report.invariants], report.mistakes

    assert [verdict(r) for r in forked] == [verdict(r) for r in cold]


def test_the_zygote_cannot_be_traced_or_read(required_sandbox, tmp_path):
    probe = """
import ctypes, os
found = []
for what in ("mem", "environ"):
    try:
        open(f"/proc/{os.getppid()}/{what}", "rb").read(1)
        found.append(what)
    except OSError:
        pass
if ctypes.CDLL(None, use_errno=True).ptrace(16, os.getppid(), 0, 0) == 0:  # PTRACE_ATTACH
    found.append("ptrace")
""" + SOFTMAX.replace("    x = np.asarray", "    if found:\n        raise RuntimeError(f'reached: {found}')\n"
                      "    x = np.asarray")
    server = forkserver.ForkServer(1, 15)
    try:
        worker = server.take()
        assert isinstance(worker, forkserver.ForkedWorker)
        from attnprep.engine import grade

        report = grade(catalogue.get("softmax"), probe, "probe.py", worker=worker)
        assert report.status == "pass", report.to_dict()
    finally:
        server.close()


def test_no_fork_server_without_the_sandbox(monkeypatch):
    monkeypatch.setattr(sandbox, "unavailable_reason", lambda: "--sandbox off")
    assert not forkserver.ForkServer.usable()


TORCH_SOFTMAX = """
import torch

def softmax(x, axis=-1):
    x = torch.as_tensor(x)
    e = torch.exp(x - x.amax(dim=axis, keepdim=True))
    return e / e.sum(dim=axis, keepdim=True)
"""


def test_a_pytorch_file_gets_a_worker_forked_from_a_zygote_that_imported_torch(required_sandbox):
    pytest.importorskip("torch")
    from attnprep.engine import grade

    server = forkserver.ForkServer(1, 15)
    try:
        worker = server.take("torch")
        assert isinstance(worker, forkserver.ForkedWorker) and worker.framework == "torch"
        report = grade(catalogue.get("softmax"), TORCH_SOFTMAX, "torch_softmax.py", worker=worker)
        assert report.status == "pass", report.to_dict()
        # The zygote is handed back clean and forks the next file's worker.
        again = server.take("torch")
        assert isinstance(again, forkserver.ForkedWorker)
        again.kill()
    finally:
        server.close()


def test_forked_pytorch_workers_grade_as_cold_ones(required_sandbox):
    pytest.importorskip("torch")
    from corpus import cases

    ex = catalogue.get("softmax")
    mine = [c for c in cases() if c.slug == "softmax" and c.path.name.startswith("torch_")]
    files = [c.path for c in [c for c in mine if c.passes][:2] + [c for c in mine if not c.passes][:2]]
    files.append(Path(__file__).parent / "hostile" / "segfault.py")  # a NumPy file among them: its own zygote
    forked = batch.grade_all(ex, files, jobs=2, timeout=10, seed=3, fork=True)
    cold = batch.grade_all(ex, files, jobs=2, timeout=10, seed=3, warm=False)

    def verdict(report):
        return report.status, [(i.id, i.status) for i in report.invariants], report.mistakes

    assert [verdict(r) for r in forked] == [verdict(r) for r in cold]


@pytest.mark.parametrize("attack", ["litter", "kills_its_parent"])
def test_what_a_pytorch_file_does_never_reaches_the_next_one(attack, required_sandbox, tmp_path):
    pytest.importorskip("torch")
    ex = catalogue.get("softmax")
    torch_inspector = "import torch\n" + INSPECTOR
    files = [_write(tmp_path, f"a_{attack}", "import torch\n" + HOSTILE[attack] + TORCH_SOFTMAX),
             _write(tmp_path, "b_next", torch_inspector), _write(tmp_path, "c_after", torch_inspector)]
    reports = batch.grade_all(ex, files, jobs=1, timeout=20, seed=0, fork=True)
    assert [r.status for r in reports[1:]] == ["pass", "pass"], [r.to_dict() for r in reports[1:]]
