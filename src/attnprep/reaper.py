"""Leave no process behind: adopt a worker's orphans and kill them after a check.

A worker runs in its own process group, so killing the group ends every
child that stayed in it. A child that escaped with setsid() is out of that
group; on Linux the parent is made a child subreaper, so such orphans are
re-parented to it and can be found and killed. Elsewhere only the group is
killed (stated in the README).
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time

_live_workers: set[int] = set()
_is_subreaper = False
# Held while a worker is spawned and registered, and while orphans are swept,
# so that a sweep in one thread never mistakes another thread's new worker
# for an orphan.
spawn_lock = threading.RLock()


def become_subreaper() -> bool:
    """Ask Linux to re-parent our descendants' orphans to us (PR_SET_CHILD_SUBREAPER)."""
    global _is_subreaper
    if _is_subreaper or not sys.platform.startswith("linux"):
        return _is_subreaper
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        _is_subreaper = libc.prctl(36, 1, 0, 0, 0) == 0  # 36 = PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        _is_subreaper = False
    return _is_subreaper


def register(pid: int) -> None:
    _live_workers.add(pid)


def unregister(pid: int) -> None:
    _live_workers.discard(pid)


def _adopted_orphans() -> list[int]:
    """Our children that are not live workers: orphans adopted from dead workers."""
    me, found = os.getpid(), []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return found
    for entry in entries:
        if not entry.isdigit() or int(entry) in _live_workers:
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                stat = handle.read().decode("ascii", "replace")
        except OSError:
            continue
        # The command name may contain spaces or parentheses: parse after the last ')'.
        fields = stat[stat.rfind(")") + 2:].split()
        if len(fields) > 1 and int(fields[1]) == me:
            found.append(int(entry))
    return found


def sweep(rounds: int = 20) -> int:
    """Kill and reap every adopted orphan, round after round as their children are adopted."""
    if not _is_subreaper:
        return 0
    with spawn_lock:
        return _sweep(rounds)


def _sweep(rounds: int) -> int:
    killed = 0
    for _ in range(rounds):
        orphans = _adopted_orphans()
        if not orphans:
            break
        for pid in orphans:
            for kill in (lambda p: os.killpg(p, signal.SIGKILL), lambda p: os.kill(p, signal.SIGKILL)):
                try:
                    kill(pid)
                except (ProcessLookupError, PermissionError, OSError):
                    pass
            killed += 1
        deadline = time.monotonic() + 1.0
        for pid in orphans:
            while time.monotonic() < deadline:
                try:
                    done, _ = os.waitpid(pid, os.WNOHANG)
                except ChildProcessError:
                    break
                if done:
                    break
                time.sleep(0.005)
    return killed
