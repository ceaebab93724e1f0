"""`grade`'s fork server: one booted worker per job that forks a fresh worker for each file.

Booting a worker is mostly importing NumPy (0.2 s of CPU on a small machine), which `grade` paid once per
file. A zygote (worker.zygote) boots once inside its own bubblewrap sandbox and forks a worker per file: a
fresh process, with nothing of the last file's in it, for a few milliseconds.

What keeps one file from reaching the next: a zygote forks one worker at a time, and before the next fork
the last one and everything it started is killed (its own cgroup where one can be had, else every process of
the sandbox but bwrap's and the zygote's) and the sandbox's writable places are emptied. Two files graded at
once run in two zygotes, in two sandboxes that cannot see each other. The zygote is non-dumpable, so a file
cannot ptrace it or read its memory; a file that kills or stops it costs a reboot, and the next file is
graded by a cold worker meanwhile. PyTorch files get zygotes of their own, which have imported torch (a
second, third of the time of a PyTorch file's cold worker), started when the first such file comes. Only
workers inside the sandbox are forked: without bubblewrap every file gets a cold worker as before.
"""

from __future__ import annotations

import os
import queue
import signal
import socket
import threading
import time

from attnprep import reaper, sandbox
from attnprep.runner import _LINUX, Worker, WorkerDied, WorkerTimeout, _Drain, _widen_pipe

NO_CODE = -(1 << 62)  # the zygote's answer for "not ended yet" (or not its child)
FORKS_PER_ZYGOTE = 200  # then a fresh one: bounds what a sandbox can keep (System V IPC objects, say)
FORK_WAIT_S = 10.0  # a zygote that does not answer a fork in this time is stopped: replaced, not waited for
SWEEP_S = 2.0


class Zygote(Worker):
    """A worker that forks workers instead of loading files (worker.zygote), reached by one socket; it has
    imported its framework (NumPy, or torch too) once for all of them."""

    _zygote = True

    def __init__(self, cpu_seconds: int, framework: str = "numpy") -> None:
        self.lock = threading.Lock()
        self.forks, self.child_cpu_seconds = 0, cpu_seconds
        self.keep: set[int] = set()
        self.host_pid: int | None = None
        from attnprep import frameworks

        # Worker adds the import's CPU seconds to the limit it passes on; the zygote passes it to the workers it
        # forks, which have no import to pay for, so it is taken off here.
        super().__init__(cpu_seconds - frameworks.limits(framework).import_cpu_s, framework=framework)

    def release(self) -> None:
        """Its forked worker has ended: the zygote may fork again (ForkServer puts it back in its queue)."""

    def _on_ready(self) -> None:
        super()._on_ready()
        tree = [self.proc.pid, *reaper.descendants(self.proc.pid)]
        self.keep, self.host_pid = set(tree), tree[-1]  # bwrap, its pid-1 reaper, the zygote

    def fork(self, deadline: float) -> ForkedWorker:
        """A fresh worker forked on pipes of its own; WorkerDied or WorkerTimeout if the zygote fails (killed)."""
        with self.lock:
            self.wait_ready(deadline)
            to_r, to_w = os.pipe()  # requests
            from_r, from_w = os.pipe()  # replies
            out_r, out_w = os.pipe()
            err_r, err_w = os.pipe()
            ours, theirs = [to_w, from_r, out_r, err_r], [to_r, from_w, out_w, err_w]
            for fd in (to_w, from_r):
                _widen_pipe(fd)
            self._deadline = deadline
            try:
                sock = socket.socket(fileno=self._to_worker)
                try:
                    socket.send_fds(sock, [b"F"], theirs)
                finally:
                    sock.detach()
                inner = int.from_bytes(self._read_exact(8), "big", signed=True)
            except OSError:
                for fd in ours:
                    os.close(fd)
                self.kill()
                raise WorkerDied("the zygote is gone") from None
            except (WorkerDied, WorkerTimeout):
                for fd in ours:
                    os.close(fd)
                raise
            finally:
                for fd in theirs:
                    os.close(fd)
            self.forks += 1
            host = self._host_of(inner)
            if host is None:
                for fd in ours:
                    os.close(fd)
                self.kill()
                raise WorkerDied("the forked worker could not be found")
            return ForkedWorker(self, inner, host, to_w, from_r, out_r, err_r)

    def _host_of(self, inner: int) -> int | None:
        """The pid outside the sandbox of the zygote's child numbered `inner` inside it (NSpid's last field)."""
        for pid in reaper.children(self.host_pid) if self.host_pid else []:
            try:
                with open(f"/proc/{pid}/status", "rb") as handle:
                    for line in handle:
                        if line.startswith(b"NSpid:"):
                            if int(line.split()[-1]) == inner:
                                return pid
                            break
            except (OSError, ValueError):
                continue
        return None

    def exit_code(self, inner: int, wait_s: float) -> int | None:
        """The exit code of a forked worker, once the zygote has reaped it (waiting up to wait_s), else None."""
        with self.lock:
            if not self.alive:
                return None
            self._deadline = time.monotonic() + wait_s + 2.0
            try:
                os.write(self._to_worker, b"W" + inner.to_bytes(8, "big", signed=True)
                         + int(wait_s * 1000).to_bytes(8, "big"))
                code = int.from_bytes(self._read_exact(8), "big", signed=True)
            except OSError:
                self.kill()
                return None
            except (WorkerDied, WorkerTimeout):
                return None
        return None if code == NO_CODE else code

    def clear_sandbox(self) -> bool:
        """Kill every process of the sandbox but bwrap's and the zygote's; False if some would not go."""
        give_up = time.monotonic() + SWEEP_S
        while True:
            left = [p for p in reaper.descendants(self.proc.pid) if p not in self.keep]
            if not left:
                return True
            if time.monotonic() > give_up:
                return False
            for pid in left:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            time.sleep(0.002)  # bwrap's reaper collects them


class ForkedWorker(Worker):
    """A worker forked by a Zygote: the same protocol and deadlines as a Worker, a different birth and death."""

    _code_from_bwrap = False  # the zygote reports the worker's own exit code

    def __init__(self, zygote: Zygote, inner: int, host: int, to_w: int, from_r: int, out_r: int,
                 err_r: int) -> None:
        from attnprep import frameworks

        # The zygote imported the framework: this worker's own clock and CPU limit have no import to pay for.
        self.framework = zygote.framework
        self.limits = frameworks.limits(self.framework)._replace(import_budget_s=0.0, import_cpu_s=0)
        self._cpu_seconds, self._measure = zygote.child_cpu_seconds, False
        self.sandboxed, self.launch = zygote.sandboxed, None
        self._zygote_of, self._inner, self.pid = zygote, inner, host
        self.alive, self.ready, self.boot_s, self._deadline = True, False, 0.0, 0.0
        self._ready_hwm_kb = self._worker_pid = self._image = None
        self._to_worker, self._from_worker, self._pending = to_w, from_r, bytearray()
        self._code: int | None = None
        self._stdout, self._stderr = _Drain(open(out_r, "rb")), _Drain(open(err_r, "rb"))
        try:
            self._pidfd = os.pidfd_open(host)
        except (AttributeError, OSError):
            self._pidfd = None
        # Before it is sent a file: its own cgroup, so that killing it kills what it starts, setsid or not.
        self.cgroup = sandbox.Cgroup.create() if _LINUX else None
        if self.cgroup is not None and not self.cgroup.add(host):
            self.cgroup.remove()
            self.cgroup = None

    def _sandbox_failed(self) -> bool:
        return False  # the sandbox was up before this worker existed

    def _on_ready(self) -> None:
        pass

    def _wait(self, timeout: float) -> int | None:
        if self._code is None:
            self._code = self._zygote_of.exit_code(self._inner, timeout)
        return self._code

    def finish_measured(self) -> tuple[int | None, str | None]:
        raise NotImplementedError("memory is measured in a worker of its own")

    def kill(self) -> None:
        """Kill the worker and everything it started, then hand the zygote back clean (or retire it)."""
        if not self.alive:
            return
        self.alive = False
        zygote = self._zygote_of
        if self.cgroup is not None:
            self.cgroup.kill()
        try:
            os.kill(self.pid, signal.SIGKILL)  # still our pid: the zygote reaps it only when asked, below
        except OSError:
            pass
        self._wait(2.0)
        if self.cgroup is not None:
            self.cgroup.remove()
        if not zygote.clear_sandbox():
            zygote.kill()
        self._close_fds()
        for drain in (self._stdout, self._stderr):
            drain.join(timeout=1)
        zygote.release()


class ForkServer:
    """`jobs` zygotes per framework for one `grade` run; `take(framework)` gives a forked worker, or None for a
    cold one instead. NumPy's zygotes start at once; torch's when the first PyTorch file asks for one."""

    def __init__(self, jobs: int, cpu_seconds: int) -> None:
        self._cpu_seconds, self._jobs = cpu_seconds, max(1, jobs)
        self._free: dict[str, queue.Queue] = {}
        self._all: dict[str, list[Zygote]] = {}
        self._lock = threading.Lock()
        self._closed = False
        self._start("numpy")

    @staticmethod
    def usable() -> bool:
        """Forking is only for workers inside bubblewrap (see the module's docstring)."""
        return _LINUX and sandbox.unavailable_reason() is None and hasattr(socket, "send_fds")

    def _start(self, framework: str) -> None:
        with self._lock:
            if framework in self._free:
                return
            self._free[framework], self._all[framework] = queue.Queue(), []
        for _ in range(self._jobs):
            self._add(framework)

    def _add(self, framework: str) -> None:
        try:
            zygote = Zygote(self._cpu_seconds, framework)
        except (OSError, sandbox.SandboxUnavailable):
            return
        free = self._free[framework]
        zygote.release = lambda z=zygote: free.put(z)  # type: ignore[attr-defined]
        with self._lock:
            self._all[framework].append(zygote)
        free.put(zygote)

    def _drop(self, zygote: Zygote) -> None:
        zygote.kill()
        with self._lock:
            every = self._all.get(zygote.framework, [])
            self._all[zygote.framework] = [z for z in every if z is not zygote]

    def take(self, framework: str = "numpy", deadline_s: float = FORK_WAIT_S) -> Worker | None:
        from attnprep import frameworks

        if self._closed or not frameworks.installed(framework):
            return None
        self._start(framework)
        with self._lock:
            if not self._all[framework]:
                return None  # no zygote could be started: cold workers, without waiting for one
        try:
            zygote = self._free[framework].get(timeout=1.0)
        except queue.Empty:
            return None  # every zygote busy (a worker not handed back): a cold worker, not a wait
        if not zygote.alive or zygote.forks >= FORKS_PER_ZYGOTE:
            self._drop(zygote)
            self._add(framework)
            return None  # this file gets a cold worker while the replacement boots
        try:
            # A torch zygote's first wait includes torch's import, which has its own budget (frameworks.LIMITS).
            zygote.wait_ready(time.monotonic() + deadline_s)
            if not zygote.sandboxed:  # bwrap failed and the worker fell back: no forking outside the sandbox
                zygote.kill()
                self._closed = True
                return None
            return zygote.fork(time.monotonic() + deadline_s)
        except (WorkerDied, WorkerTimeout, sandbox.SandboxUnavailable):
            self._drop(zygote)
            self._add(framework)
            return None

    def close(self) -> None:
        self._closed = True
        with self._lock:
            every = [z for zygotes in self._all.values() for z in zygotes]
            self._all = {}
        for zygote in every:
            zygote.kill()
