"""Progress on disk: clock starts, attempts, hints and results per exercise.

One JSON file under ATTNPREP_HOME (or the user's data directory). Every
update holds an exclusive lock and replaces the file atomically, so
concurrent runs lose nothing and a kill mid-write leaves the old file whole.
Damage is repaired record by record with a warning, never a crash: every
valid exercise record is kept, a damaged one starts afresh, and one copy of
the damaged file is kept beside it.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from collections.abc import Iterator, Sequence
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


class _Unusable(ValueError):
    """The file as a whole is not progress (not JSON, not an object, another version): nothing can be kept."""


def _valid_mock(mock: Any) -> bool:
    return (isinstance(mock, dict) and isinstance(mock.get("slugs"), list)
            and isinstance(mock.get("minutes"), (int, float)) and not isinstance(mock.get("minutes"), bool)
            and isinstance(mock.get("hints_at_start"), dict) and isinstance(mock.get("started_at"), str)
            and _is_stamp(mock["started_at"]))


def _is_stamp(text: str) -> bool:
    try:
        parse_iso(text)
    except ValueError:
        return False
    return True


def _valid_entry(entry: Any) -> bool:
    """One exercise's record: every known field of the right type, every time stamp readable."""
    if not isinstance(entry, dict):
        return False
    for key, types in _ENTRY_TYPES.items():
        if key in entry and (not isinstance(entry[key], types) or (types is int and isinstance(entry[key], bool))):
            return False
    stamps = [entry["started_at"]] if isinstance(entry.get("started_at"), str) else []
    for item in entry.get("history", []):
        if not (isinstance(item, dict) and isinstance(item.get("at"), str)
                and isinstance(item.get("status"), str) and isinstance(item.get("failed", []), list)
                and isinstance(item.get("mistakes", []), list)):
            return False
        stamps.append(item["at"])
    return all(_is_stamp(stamp) for stamp in stamps)


def _valid(data: Any) -> bool:
    """True when the whole file validates, with nothing to repair."""
    try:
        return not _repair(data)[1]
    except _Unusable:
        return False


def _repair(data: Any) -> tuple[dict[str, Any], list[str]]:
    """The progress with each damaged part reset, and what was reset; every valid record is kept.

    Raises _Unusable when nothing of the file can be trusted.
    """
    if not isinstance(data, dict):
        raise _Unusable("not a JSON object")
    if data.get("version") != STATE_VERSION:
        raise _Unusable(f"version {data.get('version')!r}, expected {STATE_VERSION}")
    damaged: list[str] = []
    exercises = data.get("exercises")
    if not isinstance(exercises, dict):
        damaged.append("the list of exercises")
        exercises = {}
    kept: dict[str, Any] = {}
    for slug, item in exercises.items():
        if _valid_entry(item):
            kept[slug] = {**empty_entry(), **item}
        else:
            damaged.append(f"the record of `{slug}`")
            kept[slug] = empty_entry()
    repaired = {**data, "exercises": kept}  # keys this version does not know are kept as they are
    if not isinstance(data.get("last_started"), (str, type(None))):
        damaged.append("the exercise started last")
        repaired["last_started"] = None
    repaired.setdefault("last_started", None)
    if data.get("mock") is not None and not _valid_mock(data["mock"]):
        damaged.append("the mock interview")
        repaired.pop("mock")
    return repaired, damaged


def _set_aside(path: Path, raw: bytes, move: bool) -> str | None:
    """Keep one copy of a damaged file next to it; its name, or None if it could not be kept."""
    stamp = time.strftime("%Y%m%dT%H%M%S")
    target = path.with_name(f"{path.name}.damaged-{stamp}-{os.getpid()}")
    n = 1
    while target.exists():  # never replace an earlier copy
        target = path.with_name(f"{path.name}.damaged-{stamp}-{os.getpid()}-{n}")
        n += 1
    try:
        if move:
            os.replace(path, target)
        else:
            target.write_bytes(raw)
    except OSError:
        return None
    return target.name


_said: set[str] = set()


def _warn_once(text: str) -> None:
    """One process says each warning once, however often it reads the progress."""
    if text not in _said:
        _said.add(text)
        sys.stderr.write(text)


def _warn_damage(path: Path, what: str, kept_as: str | None, outcome: str) -> None:
    where = f"a copy of it is kept as {kept_as}" if kept_as else "no copy could be kept (the folder is not writable)"
    text = f"warning: the progress file {path} was damaged ({what}); {outcome}; {where}\n"
    if kept_as:  # repaired on disk: this damage is not met again
        sys.stderr.write(text)
    else:  # left as it is: every read meets it again, say it once
        _warn_once(text)


def _read_unlocked(path: Path, can_write: bool = True) -> dict[str, Any]:
    """Read and validate; repair damage in place (one copy of the damaged file is kept) when we can write."""
    try:
        raw = path.read_bytes()
    except (FileNotFoundError, NotADirectoryError):  # no progress yet (or no folder that could hold it)
        return empty_state()
    except OSError as exc:
        _warn_once(f"warning: cannot read the progress file {path} ({exc.strerror})\n")
        return empty_state()
    try:
        data, damaged = _repair(migrate(json.loads(raw.decode("utf-8"))))
    except (UnicodeDecodeError, ValueError) as exc:
        why = exc.args[0] if isinstance(exc, _Unusable) else "not valid JSON"
        kept_as = _set_aside(path, raw, move=True) if can_write else None
        _warn_damage(path, why, kept_as, "progress starts afresh")
        return empty_state()
    if damaged:
        kept_as = None
        if can_write:
            kept_as = _set_aside(path, raw, move=False)
            try:
                _write_atomic(path, data)  # repaired on disk: the next read finds nothing to set aside
            except OSError:
                pass
        _warn_damage(path, ", ".join(damaged), kept_as,
                     "what was damaged starts afresh and every other record is kept")
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
    except OSError:  # an unwritable state directory: read without the lock, repair nothing on disk
        return _read_unlocked(path, can_write=False)


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
            # json.dumps (one shot, no indent) runs the C encoder; json.dump with an indent runs the pure-Python
            # one, which took tens of ms a check on a year of history, three times a check.
            handle.write(json.dumps(data, separators=(",", ":")))
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


def start_entry(data: dict[str, Any], slug: str, file: Path | str | None, at: str | None = None) -> dict[str, Any]:
    """Start (or restart) the clock of `slug` in `data`; it becomes the exercise started last."""
    item = entry(data, slug)
    item["started_at"] = at or now_iso()
    if file is not None:
        item["file"] = str(file)
    data["last_started"] = slug
    return item


def record_start(slug: str, file: Path) -> None:
    with updating() as data:
        start_entry(data, slug, file)


def record_check(slug: str, status: str, failed: list[str], clock: dict[str, Any] | None, *,
                 mistakes: Sequence[str] = (), file: Path | str | None = None) -> bool:
    """Count one attempt; on a pass, update time to first pass and best time.

    A check of an exercise that was never started starts its clock at that
    check (and makes it the exercise started last), so every exercise with an
    attempt has a start time. That first check is untimed: it has no clock
    reading, and a pass there sets no time to first pass or best time.
    Returns True when this check started the clock.
    """
    with updating() as data:
        item = entry(data, slug)
        started_now = item["started_at"] is None
        if started_now:
            start_entry(data, slug, file if item["file"] is None else None)
            clock = None
        item["attempts"] += 1
        item["last_status"] = status
        elapsed = clock["elapsed_s"] if clock else None
        item["history"] = (item["history"] + [{"at": now_iso(), "status": status, "failed": list(failed),
                                               "mistakes": list(mistakes), "clock_s": elapsed}])[-HISTORY_KEEP:]
        if status == "pass":
            item["solved"] = True
            if elapsed is not None:
                if item["first_pass_s"] is None:
                    item["first_pass_s"] = elapsed
                if item["best_s"] is None or elapsed < item["best_s"]:
                    item["best_s"] = elapsed
        return started_now


_unsaved_said = False


def save_check(slug: str, report: Any, file: Path | str | None = None) -> bool | None:
    """Record a check's report; if progress cannot be written, say so once on stderr and go on.

    Returns whether this check started the exercise's clock, or None when nothing was saved.
    The verdict never depends on it: a check grades and exits as usual either way.
    """
    global _unsaved_said
    from attnprep.errors import StateUnwritable

    try:
        return record_check(slug, report.status, report.failed_ids, report.clock,
                            mistakes=[m["id"] for m in report.mistakes], file=file)
    except StateUnwritable as exc:
        if not _unsaved_said:
            _unsaved_said = True
            sys.stderr.write(f"warning: progress was not saved ({exc}); {exc.hint}\n")
        return None


def reveal_hints(slug: str, hints: Sequence[Any], everything: bool) -> tuple[list[int], list[int]]:
    """Reveal the next hint (or all); return (already shown, newly shown) hint indices.

    Each hint has `invariants` (and may have `mistakes`): the ids it helps
    with. After a failed check the next hint is the first unrevealed one about
    the first mistake that check named, else about its first failed
    invariant (then the next ones), else the next in order.
    """
    with updating() as data:
        item = entry(data, slug)
        shown = [i for i in item["hints_shown"] if isinstance(i, int) and 0 <= i < len(hints)]
        shown += [i for i in range(min(item["hints_used"], len(hints))) if i not in shown]  # older files
        hidden = [i for i in range(len(hints)) if i not in shown]
        if everything:
            new = hidden
        else:
            last = item["history"][-1] if item["history"] else {}
            wanted = [("mistakes", m) for m in last.get("mistakes", [])]
            wanted += [("invariants", i) for i in last.get("failed", [])]
            keyed = [i for kind, key in wanted for i in hidden if key in getattr(hints[i], kind, ())]
            new = (keyed or hidden)[:1]
        item["hints_shown"] = shown + new
        item["hints_used"] = len(item["hints_shown"])
        return shown, new
