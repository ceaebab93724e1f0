"""Leave no process behind: adopt a worker's orphans and kill them after a check.

Inside the sandbox the worker is in its own pid namespace: when it ends, the
kernel kills everything it started. Without the sandbox, the worker runs in
its own process group, so killing the group ends every child that stayed in
it; a child that escaped with setsid() is out of that group, so on Linux the
parent is made a child subreaper: such orphans are re-parented to it, and the
sweep kills and reaps them, round after round, until none is left. Elsewhere
only the group is killed (stated in the README).
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
# A sweep gives up only on a tree that keeps growing this long (it never should: each round kills all it sees).
SWEEP_LIMIT_S = 5.0


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


def _children_files(pid: int) -> list[int] | None:
    """Children of `pid` from /proc/PID/task/*/children (fast), or None where the kernel lacks it."""
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return None
    seen_file = False
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/children", "rb") as handle:
                found += [int(p) for p in handle.read().split()]
            seen_file = True
        except (OSError, ValueError):
            continue
    return found if seen_file else None


def _children_scan(pid: int) -> list[int]:
    found = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return found
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                stat = handle.read().decode("ascii", "replace")
        except OSError:
            continue
        # The command name may contain spaces or parentheses: parse after the last ')'.
        fields = stat[stat.rfind(")") + 2:].split()
        if len(fields) > 1 and fields[1] == str(pid):
            found.append(int(entry))
    return found


def children(pid: int) -> list[int]:
    listed = _children_files(pid)
    return listed if listed is not None else _children_scan(pid)


def descendants(pid: int) -> list[int]:
    """Every descendant of `pid`, parents before their children."""
    found, todo = [], [pid]
    while todo and len(found) < 10_000:
        kids = children(todo.pop(0))
        found += kids
        todo += kids
    return found


def _adopted_orphans() -> list[int]:
    """Our children that are not live workers: orphans adopted from dead workers."""
    return [p for p in children(os.getpid()) if p not in _live_workers]


def sweep() -> int:
    """Kill and reap every adopted orphan, round after round as their own children are adopted, until none is left."""
    if not _is_subreaper:
        return 0
    with spawn_lock:
        return _sweep(time.monotonic() + SWEEP_LIMIT_S)


def _sweep(give_up: float) -> int:
    killed = 0
    while True:
        orphans = _adopted_orphans()
        if not orphans:
            return killed
        for pid in orphans:
            for kill in (lambda p: os.killpg(p, signal.SIGKILL), lambda p: os.kill(p, signal.SIGKILL)):
                try:
                    kill(pid)
                except OSError:
                    pass
            killed += 1
        deadline = time.monotonic() + 1.0
        for pid in orphans:
            while True:
                try:
                    done, _ = os.waitpid(pid, os.WNOHANG)
                except ChildProcessError:
                    break
                if done or time.monotonic() > deadline:
                    break
                time.sleep(0.001)
        if time.monotonic() > give_up:
            return killed
