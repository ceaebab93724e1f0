"""Parent side of the worker: spawn it (sandboxed where possible), talk to it under deadlines, kill it.

The worker starts inside bubblewrap when it can (sandbox.py), else as a plain
process in its own session; either way with no stdin, a neutral private
directory as cwd and HOME, a scrubbed environment and hard resource limits.
Its stdout and stderr are drained by threads that keep only the first few
kilobytes, so an output flood can neither block it nor fill the parent's memory.

Everything the worker sends is untrusted: each reply is read and decoded under
the call's deadline and within wire.Budget's caps, its header is type-checked
field by field, and anything malformed ends the worker and is reported as a
crash of that call, never as an error of attnprep.
"""

from __future__ import annotations

import math
import os
import select
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

# This module must not import NumPy at import time: `check` starts a worker
# first and imports the judge's NumPy while the worker boots.
from attnprep import reaper, sandbox

TYPE_CHECKING = False  # not typing's: importing typing is 4 ms of a check's start, before its worker
if TYPE_CHECKING:
    from typing import Any

MEMORY_LIMIT = sandbox.MEMORY_LIMIT
OUTPUT_KEEP = 8 * 1024
_HERE = Path(__file__).resolve().parent
_LINUX = sys.platform.startswith("linux")
_bundle: list[tuple[bytes, ...]] = []  # the worker's code, compiled once
_bundle_lock = threading.Lock()  # grade --jobs and dev check start workers from several threads


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


class Reply:
    """One reply of the worker: its checked header, and for a call its decoded value and arguments.

    A plain class, not a dataclass: this module is imported before `check` starts its worker, and the dataclasses
    module (with inspect, which it imports) is a tenth of a second's start-up on a slow machine."""

    __slots__ = ("header", "value", "args", "kwargs", "memory_peak", "memory_problem")

    def __init__(self, header: dict, value: Any = None, args: Any = None, kwargs: Any = None) -> None:
        self.header, self.value, self.args = header, value, args
        self.kwargs = {} if kwargs is None else kwargs
        # Measured by the parent from outside the worker (bytes), for calls sent with trace_memory; or why not.
        self.memory_peak: int | None = None
        self.memory_problem: str | None = None


def cpu_limit(timeout: float) -> int:
    """The worker's CPU-time limit: a backstop behind the wall-clock deadline, never before it."""
    return int(timeout) + 5


def _compiled(name: str) -> bytes:
    """worker.py or wire.py as a marshalled code object, its file name '<string>' as `python -c` gives.

    From the bytecode cache Python keeps for the module (pip writes it at install time): the worker then loads
    code instead of compiling 1,000 lines itself, 11 ms of its boot, which a check waits for. The file name
    is taken off every code object because a candidate can read its callers' frames, and a path naming attnprep
    would tell it that it is being graded."""
    import importlib.machinery
    import marshal
    import types

    def anonymous(code: types.CodeType) -> types.CodeType:
        consts = tuple(anonymous(c) if isinstance(c, types.CodeType) else c for c in code.co_consts)
        return code.replace(co_filename="<string>", co_consts=consts)

    path = str(_HERE / f"{name}.py")
    code = importlib.machinery.SourceFileLoader(f"attnprep.{name}", path).get_code(f"attnprep.{name}")
    return marshal.dumps(anonymous(code))


def _sources() -> list[bytes]:
    """The worker's code, sent through the pipe: worker.py, then the codec it runs (marshalled code objects,
    which the worker's interpreter reads: it is the base interpreter of this one, the same version)."""
    # Under the lock, or two threads starting their first workers at once both fill the list, and a worker is
    # sent its sources twice: the extra chunks then wait in the pipe as a bogus first frame, and it hangs.
    with _bundle_lock:
        if not _bundle:
            _bundle.append(tuple(_compiled(name) for name in ("worker", "wire")))
    return list(_bundle[0])


# -- the replies' headers, field by field -----------------------------------------------

_KINDS = {"ready": {"ready"}, "load": {"syntax", "import", "loaded"}, "reload": {"syntax", "import", "loaded"},
          "call": {"result", "exception", "too-large", "unencodable"}}


def _text(head: dict, key: str, cap: int = 500) -> str:
    value = head.get(key, "")
    if value is None:
        value = ""
    if not isinstance(value, str):
        raise ValueError(f"field {key!r} is not text")
    return value[:cap]


def _line(head: dict) -> int | None:
    value = head.get("line")
    if value is not None and (type(value) is not int or value < 0):
        raise ValueError("field 'line' is not a line number")
    return value


def checked_header(head: dict, op: str) -> dict:
    """A copy of a reply header holding only well-typed fields; ValueError for anything else."""
    kind = head.get("kind")
    if not isinstance(kind, str) or kind not in _KINDS[op]:
        raise ValueError(f"unexpected reply {str(kind)[:40]!r} to {op!r}")
    clean: dict[str, Any] = {"kind": kind}
    if kind in ("syntax", "import", "exception", "unencodable"):
        clean["type"] = _text(head, "type", 100) or "Exception"
        clean["message"] = _text(head, "message")
    if kind in ("syntax", "import", "exception"):
        clean["line"] = _line(head)
    if kind in ("import", "exception"):
        mro = head.get("mro", [])
        if not isinstance(mro, list) or len(mro) > 64 or not all(isinstance(m, str) for m in mro):
            raise ValueError("field 'mro' is not a list of names")
        clean["mro"] = [m[:100] for m in mro]
    if kind == "loaded":
        missing = head.get("missing", [])
        if not isinstance(missing, list) or len(missing) > 100 or not all(isinstance(m, str) for m in missing):
            raise ValueError("field 'missing' is not a list of names")
        clean["missing"] = [m[:100] for m in missing]
    if kind == "too-large":
        clean["message"] = _text(head, "message")
    if kind == "result":
        elapsed = head.get("elapsed", 0.0)
        if type(elapsed) not in (int, float) or not math.isfinite(elapsed) or elapsed < 0:
            raise ValueError("field 'elapsed' is not a duration")
        peak = head.get("peak_bytes")
        if peak is not None and type(peak) is not int:
            raise ValueError("field 'peak_bytes' is not a byte count")
        clean.update(elapsed=float(elapsed), peak_bytes=peak)
        if head.get("bfloat16") is True:  # a PyTorch bfloat16 result, sent as float32 (a hint, never a verdict)
            clean["bfloat16"] = True
    return clean


# -- the worker ------------------------------------------------------------------------

def _status_kb(pid: int, key: str) -> int | None:
    """A kB figure of /proc/PID/status (read as bytes: a text codec would be imported after the candidate)."""
    try:
        with open(f"/proc/{pid}/status", "rb") as handle:
            for line in handle:
                if line.startswith(key.encode() + b":"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


def _image_of(pid: int) -> tuple[str, ...] | None:
    """start_code, end_code and start_stack of a process: they move (ASLR) when it exec's a new image."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read().decode("ascii", "replace")
    except OSError:
        return None
    fields = stat[stat.rfind(")") + 2:].split()
    return tuple(fields[22:25]) if len(fields) > 25 else None


_READ_AHEAD = 1 << 16  # reads shorter than this take what the pipe holds, and keep the rest


def _widen_pipe(fd: int) -> None:
    """Linux: a 1 MiB pipe buffer instead of 64 KiB, so an array of 65,536 floats crosses in one write instead
    of eight rounds of waking the other side (a call on one: 3.9 ms with 64 KiB, 3.3 ms with 1 MiB)."""
    try:
        import fcntl

        fcntl.fcntl(fd, getattr(fcntl, "F_SETPIPE_SZ", 1031), 1 << 20)
    except (ImportError, OSError):
        pass  # not Linux, or a lower /proc/sys/fs/pipe-max-size: the default buffer works, a little slower


class Worker:
    """One worker process (inside bubblewrap where possible) and its protocol pipes.

    `measure_memory`: a worker for one memory measurement. It warms NumPy up before it is ready, its
    high-water mark is read from /proc when it is ready, and `finish_measured()` ends it and gives what
    it used beyond that, from the kernel's own account (see there).
    """

    _zygote = False  # forkserver.Zygote: a process that forks workers, reached through one socket
    _code_from_bwrap = True  # exit codes come from bwrap, which reports a death by signal N as 128 + N

    def __init__(self, cpu_seconds: int = 60, *, measure_memory: bool = False, framework: str = "numpy") -> None:
        from attnprep import frameworks

        self.framework, self.limits = framework, frameworks.limits(framework)
        self._cpu_seconds, self._measure = cpu_seconds + self.limits.import_cpu_s, measure_memory
        self.alive = self.ready = False
        self.boot_s = 0.0  # how long the framework's import took (the wait for `ready`, when it had its own budget)
        self._deadline = 0.0
        self.cgroup = sandbox.Cgroup.create() if _LINUX else None
        self._ready_hwm_kb: int | None = None
        self._worker_pid: int | None = None
        self._image: tuple[str, ...] | None = None  # where the worker's code and stack are mapped
        reaper.become_subreaper()
        self._spawn()

    # -- start-up -------------------------------------------------------------------
    def _spawn(self) -> None:
        if self._zygote:  # one socket both ways: it also carries the pipes of each worker forked (forkserver.py)
            import socket

            mine, theirs = socket.socketpair()
            self._to_worker = self._from_worker = mine.detach()  # plain fds from here on, closed by _close_fds
            to_worker_r = from_worker_w = theirs.detach()
        else:
            to_worker_r, self._to_worker = os.pipe()
            self._from_worker, from_worker_w = os.pipe()
            for fd in (self._to_worker, self._from_worker):
                _widen_pipe(fd)
        self._pending = bytearray()  # read from this worker's pipe, not yet taken by _read_exact
        self._spawned_at = time.monotonic()
        self.launch = sandbox.launch(to_worker_r, from_worker_w, self._cpu_seconds, warm=self._measure,
                                     framework=self.framework, memory_bytes=self.limits.memory_bytes,
                                     zygote=self._zygote)
        self.sandboxed = self.launch.sandboxed
        with reaper.spawn_lock:
            try:
                self.proc = subprocess.Popen(
                    self.launch.argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                    cwd=self.launch.cwd, env=self.launch.env, pass_fds=(to_worker_r, from_worker_w),
                    start_new_session=True, close_fds=True,
                )
            except OSError:
                for fd in {to_worker_r, from_worker_w, self._to_worker, self._from_worker}:
                    os.close(fd)
                self.launch.cleanup()
                if self.sandboxed:  # bwrap itself would not run: never try it again here
                    sandbox.mark_broken("bwrap could not be executed")
                raise
            reaper.register(self.proc.pid)
        for fd in {to_worker_r, from_worker_w}:
            os.close(fd)
        self._stdout, self._stderr = _Drain(self.proc.stdout), _Drain(self.proc.stderr)
        try:
            self._pidfd = os.pidfd_open(self.proc.pid)
        except (AttributeError, OSError):
            self._pidfd = None
        self.alive = True
        try:
            for chunk in _sources():  # fits the pipe's buffer: no waiting on the worker here
                os.write(self._to_worker, len(chunk).to_bytes(8, "big") + chunk)
        except OSError:
            pass  # the worker is already gone: wait_ready says why
        self._placing = None
        self._placed: set[int] = set()  # pids _place_early has put in this worker's cgroup
        if self.cgroup is not None:
            self._placing = threading.Thread(target=self._place_early, daemon=True,
                                             args=(self.proc.pid, 3 if self.sandboxed else 1, self.cgroup,
                                                   self._placed))
            self._placing.start()

    def _place_early(self, pid: int, processes: int, cgroup: sandbox.Cgroup, placed: set[int]) -> None:
        """Put the worker's processes (bwrap, its reaper, the worker; or the worker alone) in its cgroup as soon as
        they exist, while the worker boots, and note them in `placed`: moving a process into a cgroup v1 waits
        5 to 15 ms in the kernel (for the first move of a burst, even of a process already there), which a check
        would otherwise wait through once the worker is ready. _on_ready places what is not in `placed`, before
        the candidate exists."""
        end = time.monotonic() + 2.0
        while self.alive and time.monotonic() < end:
            tree = [pid, *reaper.descendants(pid)]
            if len(tree) >= processes:
                placed.update(member for member in tree if cgroup.add(member))
                return
            time.sleep(0.002)

    def wait_ready(self, deadline: float) -> None:
        """Wait for the worker's `ready`; a sandbox that cannot start falls back (auto) or raises (required).

        A framework with an import budget (torch) imports before it is ready: that wait may run to the
        budget counted from the spawn, past `deadline`, and `boot_s` says how long it took. Once ready,
        a second call returns at once.
        """
        from attnprep import wire

        if self.ready:
            return
        if self.limits.import_budget_s:
            deadline = max(deadline, self._spawned_at + self.limits.import_budget_s)
        waited_from = time.monotonic()
        self._deadline = deadline
        try:
            head, _ = wire.read_frame(self._read_exact)
            checked_header(head, "ready")
        except WorkerDied as exc:
            if self.sandboxed and self._sandbox_failed():
                self._fall_back_or_raise()
                return self.wait_ready(deadline)
            raise WorkerDied(str(exc)) from None
        except WorkerTimeout:
            raise
        except Exception as exc:  # noqa: BLE001 - anything else is a worker that did not start
            self.kill()
            raise WorkerDied(f"the worker did not start ({exc})") from None
        self.ready = True
        if self.limits.import_budget_s:
            self.boot_s = time.monotonic() - waited_from
        self._on_ready()

    def booted(self) -> bool:
        """Has the worker said anything yet (its `ready`, or an end)? Never waits."""
        if self.ready or self._pending:
            return True
        try:
            return bool(select.select([self._from_worker], [], [], 0)[0])
        except (OSError, ValueError):  # closed: it is over, one way or the other
            return True

    def _sandbox_failed(self) -> bool:
        """Did bwrap (or the interpreter inside it) fail to set up, as opposed to a worker that died later?"""
        self._stderr.join(timeout=1)
        text = self._stderr.kept.decode("utf-8", "replace")
        code = self.proc.returncode
        reason = sandbox.first_line(self._stderr.kept)
        if text.startswith("bwrap:") or (code is not None and code in (1, 126, 127) and reason):
            sandbox.mark_broken(reason or f"bwrap exited with code {code}")
            return True
        return False

    def _fall_back_or_raise(self) -> None:
        """The failed worker is already killed and cleaned up; start the fallback in its place."""
        if sandbox.mode() == "required":
            raise sandbox.SandboxUnavailable(
                f"--sandbox required, but bwrap cannot run the worker here: {sandbox.unavailable_reason()}")
        self.cgroup = sandbox.Cgroup.create() if _LINUX else None
        self._spawn()

    def _on_ready(self) -> None:
        """Before the candidate exists: find the worker's process, cap its tree, note its memory."""
        if not (self._measure or self.cgroup):
            return
        if self._placing is not None:
            self._placing.join()
        tree = [self.proc.pid, *reaper.descendants(self.proc.pid)]
        self._worker_pid = tree[-1]  # bwrap, its pid-1 reaper, then the worker; or the worker alone
        if self.cgroup is not None:
            for pid in tree:
                if pid not in self._placed:
                    self.cgroup.add(pid)
        if self._measure:
            self._ready_hwm_kb = _status_kb(self._worker_pid, "VmHWM")
            self._image = _image_of(self._worker_pid)

    # -- framing under a deadline -----------------------------------------------------
    def _read_exact(self, n: int) -> bytes | bytearray:
        """n bytes of the worker's replies, under the deadline. Small reads take what the pipe holds (up to 64
        KiB) and keep the rest for the next call, so a frame's lengths, header and small arrays cost one read
        between them, not a select and a read each; a large blob is read straight into its own buffer."""
        pending = self._pending
        if len(pending) >= n:
            out = bytes(pending[:n])
            del pending[:n]
            return out
        out = bytearray(n)
        view = memoryview(out)
        have = len(pending)
        view[:have] = pending
        pending.clear()
        watch = [self._from_worker] + ([self._pidfd] if self._pidfd is not None else [])
        while have < n:
            left = self._deadline - time.monotonic()
            if left <= 0:
                self.kill()
                raise WorkerTimeout()
            ready, _, _ = select.select(watch, [], [], left)
            if not ready:
                continue
            if self._from_worker not in ready:
                # The worker process has ended, though a child of it may hold the pipe open: it is dead.
                note = self._death_note()
                self.kill()
                raise WorkerDied(note)
            if n - have < _READ_AHEAD:
                chunk = os.read(self._from_worker, _READ_AHEAD)
                got = min(len(chunk), n - have)
                view[have:have + got] = chunk[:got]
                pending += chunk[got:]
            elif hasattr(os, "readv"):
                got = os.readv(self._from_worker, [view[have:have + (1 << 20)]])
            else:
                chunk = os.read(self._from_worker, min(n - have, 1 << 20))
                got = len(chunk)
                view[have:have + got] = chunk
            if not got:
                note = self._death_note()  # before the kill, which would make every death a SIGKILL
                self.kill()
                raise WorkerDied(note)
            have += got
        return out

    def _death_note(self) -> str:
        code = self._wait(max(0.05, min(1.0, self._deadline - time.monotonic())))
        if code is None:
            return "the worker closed its pipe"
        if self.sandboxed and self._code_from_bwrap and code > 128 and code - 128 < 65:
            code = -(code - 128)  # bwrap reports a child killed by signal N as exit code 128 + N
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            hint = " (memory limit reached?)" if name == "SIGKILL" else ""
            return f"the worker process was killed by {name}{hint}"
        return f"the worker process exited with code {code}"

    def request(self, header: dict, blobs: list[bytes], deadline: float) -> Reply:
        """Send one request and wait for its reply until `deadline` (monotonic), decoding included."""
        from attnprep import wire  # NumPy: imported while the worker boots, not before

        if not self.alive:
            raise WorkerDied("the worker is not running")
        self._deadline = deadline
        op = header.get("op", "call")
        try:
            wire.write_frame(self._to_worker, wire.pack(header, blobs))
        except OSError:
            note = self._death_note()
            self.kill()
            raise WorkerDied(note) from None
        try:
            head, payload = wire.read_frame(self._read_exact)
            reply = Reply(checked_header(head, op))
            if reply.header["kind"] == "result":
                budget = wire.Budget(deadline)
                reply.value = wire.decode(head.get("result"), payload, budget=budget)
                if head.get("args_unchanged") is True:
                    reply.args = reply.kwargs = wire.ARGS_UNCHANGED
                else:
                    reply.args = wire.decode(head.get("args"), payload, budget=budget)
                    reply.kwargs = wire.decode(head.get("kwargs", {"$dict": []}), payload, budget=budget)
        except (WorkerTimeout, WorkerDied):
            raise
        except wire.DeadlineExceeded:
            self.kill()
            raise WorkerTimeout() from None
        except wire.TooLarge as exc:  # read in full, so the worker may go on
            return Reply({"kind": "too-large", "message": str(exc)})
        except Exception as exc:  # noqa: BLE001 - whatever the worker sent, it is its fault, not ours
            self.kill()
            detail = str(exc)[:200] or type(exc).__name__
            raise WorkerDied(f"the worker sent a malformed reply ({detail})") from None
        return reply

    def output(self) -> str:
        """What the candidate printed (capped), stdout then stderr."""
        parts = [d.text() for d in (self._stdout, self._stderr) if d.total]
        return "\n".join(parts)

    def finish_measured(self) -> tuple[int | None, str | None]:
        """End a measure_memory worker: (bytes it used beyond what it held when ready, or None; a problem).

        The cgroup's memory.peak where there is one (the whole tree, Linux 5.19+); else the kernel's
        high-water mark of resident memory (VmHWM) of the worker and of every process it still has,
        read by us from /proc. In the sandbox /proc is read-only, so the candidate cannot reset the mark
        (/proc/self/clear_refs); without the sandbox it could (a documented limit). A worker that exec'd
        a fresh image to start a new mark is caught by its code and stack having moved.
        """
        problem = None
        group_peak = self.cgroup.peak() if self.cgroup is not None else None
        peak_kb = None
        if self._worker_pid is not None and self.alive:
            marks = [_status_kb(pid, "VmHWM") for pid in (self._worker_pid, *reaper.descendants(self._worker_pid))]
            marks = [m for m in marks if m is not None]
            peak_kb = max(marks) if marks else None
            if self._image is not None and _image_of(self._worker_pid) != self._image:
                problem = "the worker replaced its own process image (exec), so its memory cannot be measured"
        self.kill()
        if group_peak is not None:
            return group_peak, problem
        if peak_kb is None or self._ready_hwm_kb is None:
            return None, problem
        return max(0, peak_kb - self._ready_hwm_kb) * 1024, problem

    def kill(self) -> None:
        """Kill the worker and everything it started, and release its resources."""
        if not self.alive:
            return
        self.alive = False
        if self.cgroup is not None:
            self.cgroup.kill()
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            self.proc.kill()
        except ProcessLookupError:
            pass
        self._wait(5.0)
        reaper.unregister(self.proc.pid)
        reaper.sweep()  # bwrap's own reaper and anything that escaped with setsid
        if getattr(self, "_placing", None) is not None:
            self._placing.join(timeout=2.5)  # it adds no process once this one has ended, but let it finish first
        if self.cgroup is not None:
            self.cgroup.remove()
        self._close_fds()
        for drain in (self._stdout, self._stderr):
            drain.join(timeout=1)
        self.launch.cleanup()

    def _wait(self, timeout: float) -> int | None:
        """The worker's exit code once it has ended (waiting up to `timeout` s), else None."""
        if self.proc.returncode is not None:
            return self.proc.returncode
        if os.name != "posix":
            try:
                return self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                return None
        end = time.monotonic() + timeout
        while True:
            try:
                pid, status = os.waitpid(self.proc.pid, os.WNOHANG)
            except ChildProcessError:  # reaped elsewhere: the status is lost, the process is gone
                self.proc.returncode = -signal.SIGKILL
                return self.proc.returncode
            if pid:
                self.proc.returncode = os.waitstatus_to_exitcode(status)
                return self.proc.returncode
            left = end - time.monotonic()
            if left <= 0:
                return None
            if self._pidfd is not None:
                select.select([self._pidfd], [], [], left)
            else:
                time.sleep(min(0.005, left))

    def _close_fds(self) -> None:
        for fd in {self._to_worker, self._from_worker, self._pidfd}:  # a set: a zygote's two are one socket
            if fd is None:
                continue
            try:
                os.close(fd)
            except OSError:
                pass
        self._pidfd = None


# -- the worker `attnprep check` starts before its command line is parsed ---------------------------------------

# (worker, the sandbox mode it was started in). Booting a worker (Python, NumPy, bubblewrap) takes about as long
# as the judge's own imports (typer, rich, NumPy), which come after the command line is read: started first, by
# the entry point (launch.py), its boot is off the critical path of a check.
_early: tuple[Worker, str] | None = None


def start_early(cpu_seconds: int) -> None:
    """Start a NumPy worker with the default sandbox mode now, for the `check` this process is about to run."""
    global _early
    try:
        _early = (Worker(cpu_seconds=cpu_seconds), sandbox.mode())
    except Exception:  # noqa: BLE001 - a guess made early: the worker check starts itself reports the problem
        _early = None


def take_early(cpu_seconds: int, framework: str) -> Worker | None:
    """The early worker, if it is the one `check` needs (framework, CPU limit, sandbox mode); else it is ended."""
    global _early
    early, _early = _early, None
    if early is None:
        return None
    worker, mode = early
    if worker.framework == framework and worker._cpu_seconds == cpu_seconds + worker.limits.import_cpu_s \
            and mode == sandbox.mode():
        return worker
    worker.kill()
    return None


def drop_early() -> None:
    """End an early worker no check took (a usage error, --help)."""
    global _early
    early, _early = _early, None
    if early is not None:
        early[0].kill()
