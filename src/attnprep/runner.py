"""Parent side of the sandbox: spawn a worker, talk to it under deadlines, kill it.

The worker gets its own session, no stdin, a private temporary directory as
cwd and HOME, a scrubbed environment and resource limits. Its stdout and
stderr are drained by threads that keep only the first few kilobytes, so an
output flood can neither block it nor fill the parent's memory.
"""

from __future__ import annotations

import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# This module must not import NumPy at import time: `check` starts a worker
# first and imports the judge's NumPy while the worker boots.
from attnprep import reaper

MEMORY_LIMIT = 2 * 1024**3
OUTPUT_KEEP = 8 * 1024
# Variables the worker may inherit: enough to find Python and run NumPy the
# same way the parent does; nothing that points at the user's files.
_ENV_KEEP = ("PATH", "LANG", "LC_ALL", "SYSTEMROOT", "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")


class WorkerTimeout(Exception):
    """The worker did not answer before the deadline (it has been killed)."""


class WorkerDied(Exception):
    """The worker exited or broke the protocol (it has been killed)."""


class _Drain(threading.Thread):
    """Reads a pipe to the end, keeping the first OUTPUT_KEEP bytes."""

    def __init__(self, pipe) -> None:
        super().__init__(daemon=True)
        self.pipe, self.kept, self.total = pipe, bytearray(), 0
        self.start()

    def run(self) -> None:
        try:
            while chunk := self.pipe.read1(1 << 16):
                self.total += len(chunk)
                room = OUTPUT_KEEP - len(self.kept)
                if room > 0:
                    self.kept += chunk[:room]
        except (OSError, ValueError):
            pass

    def text(self) -> str:
        more = f"\n... ({self.total - len(self.kept):,} more bytes dropped)" if self.total > len(self.kept) else ""
        return self.kept.decode("utf-8", "replace") + more


@dataclass
class Reply:
    header: dict
    value: Any = None
    args: Any = None
    kwargs: Any = field(default_factory=dict)


def cpu_limit(timeout: float) -> int:
    """The worker's CPU-time limit: a backstop behind the wall-clock deadline, never before it."""
    return int(timeout) + 5


def _worker_command(fd_in: int, fd_out: int, cpu_seconds: int) -> list[str]:
    package_parent = str(Path(__file__).resolve().parent.parent)
    bootstrap = (f"import sys, runpy; sys.path.append({package_parent!r}); "
                 "runpy.run_module('attnprep.worker', run_name='__main__')")
    return [sys.executable, "-I", "-c", bootstrap, str(fd_in), str(fd_out),
            str(MEMORY_LIMIT), str(cpu_seconds)]


class Worker:
    """One sandboxed worker process and its protocol pipes."""

    def __init__(self, cpu_seconds: int = 60) -> None:
        self.home = tempfile.mkdtemp(prefix="attnprep-worker-")
        to_worker_r, self._to_worker = os.pipe()
        self._from_worker, from_worker_w = os.pipe()
        env = {k: os.environ[k] for k in _ENV_KEEP if k in os.environ}
        env.update(HOME=self.home, TMPDIR=self.home, PYTHONHASHSEED="0", PYTHONIOENCODING="utf-8",
                   OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
        reaper.become_subreaper()
        with reaper.spawn_lock:
            self.proc = subprocess.Popen(
                _worker_command(to_worker_r, from_worker_w, cpu_seconds),
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                cwd=self.home, env=env, pass_fds=(to_worker_r, from_worker_w),
                start_new_session=True, close_fds=True,
            )
            reaper.register(self.proc.pid)
        os.close(to_worker_r)
        os.close(from_worker_w)
        self._stdout, self._stderr = _Drain(self.proc.stdout), _Drain(self.proc.stderr)
        self._deadline = 0.0
        self.alive = True

    # -- framing under a deadline -------------------------------------------------
    def _read_exact(self, n: int) -> bytes:
        chunks, need = [], n
        while need:
            left = self._deadline - time.monotonic()
            if left <= 0:
                self.kill()
                raise WorkerTimeout()
            ready, _, _ = select.select([self._from_worker], [], [], left)
            if not ready:
                continue
            chunk = os.read(self._from_worker, min(need, 1 << 20))
            if not chunk:
                self.kill()
                raise WorkerDied(self._death_note())
            chunks.append(chunk)
            need -= len(chunk)
        return b"".join(chunks)

    def _death_note(self) -> str:
        try:
            code = self.proc.wait(timeout=1)
        except subprocess.TimeoutExpired:
            return "the worker closed its pipe"
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            hint = " (memory limit reached?)" if name == "SIGKILL" else ""
            return f"the worker process was killed by {name}{hint}"
        return f"the worker process exited with code {code}"

    def request(self, header: dict, blobs: list[bytes], deadline: float) -> Reply:
        """Send one request and wait for its reply until `deadline` (monotonic)."""
        from attnprep import wire  # NumPy: imported while the worker boots, not before

        if not self.alive:
            raise WorkerDied("the worker is not running")
        self._deadline = deadline
        try:
            wire.write_frame(self._to_worker, wire.pack(header, blobs))
        except OSError:
            self.kill()
            raise WorkerDied(self._death_note()) from None
        try:
            head, payload = wire.read_frame(self._read_exact)
            reply = Reply(head)
            if head.get("kind") == "result":
                reply.value = wire.decode(head.get("result"), payload)
                reply.args = wire.decode(head.get("args"), payload)
                reply.kwargs = wire.decode(head.get("kwargs", {"$dict": []}), payload)
        except wire.WireError as exc:
            self.kill()
            raise WorkerDied(f"the worker sent a malformed reply ({exc})") from None
        return reply

    def wait_ready(self, deadline: float) -> None:
        from attnprep import wire

        self._deadline = deadline
        try:
            head, _ = wire.read_frame(self._read_exact)
        except wire.WireError as exc:
            self.kill()
            raise WorkerDied(str(exc)) from None
        if head.get("kind") != "ready":
            self.kill()
            raise WorkerDied("the worker did not start")

    def output(self) -> str:
        """What the candidate printed (capped), stdout then stderr."""
        parts = [d.text() for d in (self._stdout, self._stderr) if d.total]
        return "\n".join(parts)

    def kill(self) -> None:
        """Kill the worker's whole process group and release its resources."""
        if not self.alive:
            return
        self.alive = False
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            self.proc.kill()
        except ProcessLookupError:
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        reaper.unregister(self.proc.pid)
        reaper.sweep()
        for fd in (self._to_worker, self._from_worker):
            try:
                os.close(fd)
            except OSError:
                pass
        for drain in (self._stdout, self._stderr):
            drain.join(timeout=1)
        shutil.rmtree(self.home, ignore_errors=True)
