"""Progress on disk: clock starts, attempts, hints and results per exercise.

One JSON file under ATTNPREP_HOME (or the user's data directory). Every
update holds an exclusive lock and replaces the file atomically, so
concurrent runs lose nothing and a kill mid-write leaves the old file whole.
A file that does not validate is set aside with a warning, never a crash.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

STATE_VERSION = 2
HISTORY_KEEP = 200


def state_dir() -> Path:
    """ATTNPREP_HOME, else the platform's per-user data directory."""
    if os.environ.get("ATTNPREP_HOME"):
        return Path(os.environ["ATTNPREP_HOME"]).expanduser()
    home = Path.home()
    if sys.platform == "darwin":
        return home / "Library" / "Application Support" / "attnprep"
    if os.name == "nt":
        return Path(os.environ.get("LOCALAPPDATA", home / "AppData" / "Local")) / "attnprep"
    return Path(os.environ.get("XDG_DATA_HOME") or home / ".local" / "share") / "attnprep"


def progress_path() -> Path:
    return state_dir() / "progress.json"


def now() -> float:
    """Seconds since the epoch: the system clock, or the UTC stamp in ATTNPREP_NOW (a fake clock for tests)."""
    fixed = os.environ.get("ATTNPREP_NOW")
    if not fixed:
        return time.time()
    try:
        return parse_iso(fixed)
    except ValueError:
        from attnprep.errors import AttnprepError

        raise AttnprepError(f"ATTNPREP_NOW={fixed!r} is not a UTC time such as 2026-11-29T12:00:00Z",
                            "unset ATTNPREP_NOW to use the system clock") from None


def iso(at: float) -> str:
    """Seconds since the epoch as a stamp that parse_iso reads back."""
    return datetime.fromtimestamp(at, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def now_iso() -> str:
    return iso(now())


def parse_iso(text: str) -> float:
    """Seconds since the epoch of a stamp written by now_iso; ValueError for anything else."""
    # Not strptime: its first call imports _strptime and builds locale regexes, a few ms of every `list`.
    if len(text) != 20 or text[10] != "T" or text[-1] != "Z":
        raise ValueError(f"not a UTC timestamp: {text!r}")
    return datetime.fromisoformat(text[:-1]).replace(tzinfo=UTC).timestamp()


def empty_entry() -> dict[str, Any]:
    return {"started_at": None, "file": None, "attempts": 0, "hints_used": 0,
            "first_pass_s": None, "best_s": None, "last_status": None, "solved": False,
            "history": [], "hints_shown": []}


def empty_state() -> dict[str, Any]:
    return {"version": STATE_VERSION, "last_started": None, "exercises": {}}


_ENTRY_TYPES = {"started_at": (str, type(None)), "file": (str, type(None)), "attempts": int,
                "hints_used": int, "first_pass_s": (int, float, type(None)),
                "best_s": (int, float, type(None)), "last_status": (str, type(None)),
                "solved": bool, "history": list, "hints_shown": list}


def _valid(data: Any) -> bool:
    if not isinstance(data, dict) or data.get("version") != STATE_VERSION:
        return False
    if not isinstance(data.get("exercises"), dict) or not isinstance(data.get("last_started"), (str, type(None))):
        return False
    mock = data.get("mock")
    if mock is not None and not (isinstance(mock, dict) and isinstance(mock.get("slugs"), list)
                                 and isinstance(mock.get("minutes"), (int, float))
                                 and isinstance(mock.get("hints_at_start"), dict)
                                 and isinstance(mock.get("started_at"), str)):
        return False
    for entry in data["exercises"].values():
        if not isinstance(entry, dict):
            return False
        for key, types in _ENTRY_TYPES.items():
            if key in entry and not isinstance(entry[key], types):
                return False
        stamps = [entry.get("started_at")] if isinstance(entry.get("started_at"), str) else []
        for item in entry.get("history", []):
            if not (isinstance(item, dict) and isinstance(item.get("at"), str)
                    and isinstance(item.get("status"), str) and isinstance(item.get("failed", []), list)):
                return False
            stamps.append(item["at"])
        try:
            for stamp in stamps:
                parse_iso(stamp)
        except ValueError:
            return False
    return True


def _set_aside(path: Path, why: str) -> None:
    stamp = time.strftime("%Y%m%dT%H%M%S")
    target = path.with_name(f"{path.name}.damaged-{stamp}-{os.getpid()}")
    with contextlib.suppress(OSError):
        os.replace(path, target)
    sys.stderr.write(f"warning: the progress file {path} was damaged ({why}); "
                     f"it was set aside as {target.name} and progress starts afresh\n")


def _read_unlocked(path: Path) -> dict[str, Any]:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return empty_state()
    except OSError as exc:
        sys.stderr.write(f"warning: cannot read the progress file {path} ({exc.strerror})\n")
        return empty_state()
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        _set_aside(path, "not valid JSON")
        return empty_state()
    data = migrate(data)
    if not _valid(data):
        _set_aside(path, "unexpected contents")
        return empty_state()
    for slug, entry in data["exercises"].items():
        data["exercises"][slug] = {**empty_entry(), **entry}
    return data


def _to_v2(data: dict[str, Any]) -> dict[str, Any]:
    """Version 2 adds `schedule` (spaced review, see schedule.py), rebuilt from the history; nothing is dropped."""
    from attnprep import schedule

    data["schedule"] = schedule.from_history(data)
    data["version"] = 2
    return data


# Each step takes a file of version N (the key) to N + 1, keeping everything the older version wrote.
_MIGRATIONS = {1: _to_v2}


def migrate(data: Any) -> Any:
    """A progress file of an older version, brought up to STATE_VERSION; anything else is returned as it is."""
    while isinstance(data, dict) and data.get("version") in _MIGRATIONS:
        data = _MIGRATIONS[data["version"]](data)
    return data


def load() -> dict[str, Any]:
    """The current progress (validated; a damaged file is set aside)."""
    path = progress_path()
    try:
        with _locked(path.parent):
            return _read_unlocked(path)
    except OSError:  # an unwritable state directory: read without the lock
        return _read_unlocked(path)


@contextlib.contextmanager
def _locked(folder: Path) -> Iterator[None]:
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "progress.lock", "a+") as handle:
        try:
            import fcntl
        except ImportError:  # Windows: no advisory lock; atomic replace still holds
            yield
            return
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _write_atomic(path: Path, data: dict[str, Any]) -> None:
    import tempfile  # only writes need it; `list` and `status` start faster without

    fd, tmp = tempfile.mkstemp(prefix=".progress-", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(data, handle, indent=1)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def updating() -> Iterator[dict[str, Any]]:
    """Lock, read, let the caller change the state, then write it back atomically."""
    path = progress_path()
    try:
        with _locked(path.parent):
            data = _read_unlocked(path)
            yield data
            _write_atomic(path, data)
    except OSError as exc:
        from attnprep.errors import StateUnwritable

        raise StateUnwritable(f"cannot save progress in {path.parent}: {exc.strerror or exc}") from None


def entry(data: dict[str, Any], slug: str) -> dict[str, Any]:
    """The progress entry of `slug`, created on first use."""
    return data["exercises"].setdefault(slug, empty_entry())


def clock_of(item: dict[str, Any] | None, target_s: int, at: float | None = None) -> dict[str, Any] | None:
    """The interview clock as the report shows it, or None if never started."""
    if not item or not item.get("started_at"):
        return None
    elapsed = max(0.0, (at or now()) - parse_iso(item["started_at"]))
    return {"started_at": item["started_at"], "elapsed_s": round(elapsed, 1), "target_s": target_s}


def record_start(slug: str, file: Path) -> None:
    with updating() as data:
        item = entry(data, slug)
        item["started_at"], item["file"] = now_iso(), str(file)
        data["last_started"] = slug


def record_check(slug: str, status: str, failed: list[str], clock: dict[str, Any] | None) -> None:
    """Count one attempt; on a pass, update time to first pass and best time."""
    with updating() as data:
        item = entry(data, slug)
        item["attempts"] += 1
        item["last_status"] = status
        elapsed = clock["elapsed_s"] if clock else None
        item["history"] = (item["history"] + [{"at": now_iso(), "status": status, "failed": failed,
                                               "clock_s": elapsed}])[-HISTORY_KEEP:]
        if status == "pass":
            item["solved"] = True
            if elapsed is not None:
                if item["first_pass_s"] is None:
                    item["first_pass_s"] = elapsed
                if item["best_s"] is None or elapsed < item["best_s"]:
                    item["best_s"] = elapsed


def reveal_hints(slug: str, keyed_to: list[tuple[str, ...]], everything: bool) -> tuple[list[int], list[int]]:
    """Reveal the next hint (or all); return (already shown, newly shown) hint indices.

    `keyed_to[i]` are the invariants hint i helps with. After a failed check the
    next hint is the first unrevealed one keyed to an invariant that failed.
    """
    with updating() as data:
        item = entry(data, slug)
        shown = [i for i in item["hints_shown"] if isinstance(i, int) and 0 <= i < len(keyed_to)]
        shown += [i for i in range(min(item["hints_used"], len(keyed_to))) if i not in shown]  # older files
        hidden = [i for i in range(len(keyed_to)) if i not in shown]
        if everything:
            new = hidden
        else:
            failed = set(item["history"][-1].get("failed", [])) if item["history"] else set()
            keyed = [i for i in hidden if failed & set(keyed_to[i])]
            new = (keyed or hidden)[:1]
        item["hints_shown"] = shown + new
        item["hints_used"] = len(item["hints_shown"])
        return shown, new
