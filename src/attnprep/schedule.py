"""Spaced review: each exercise is an FSRS card (the `fsrs` package), rated by how its check sessions went.

How an outcome becomes a rating:
- the first pass of a session with no hints and within the exercise's target: good;
- the first pass of a session with hints, or over the target: hard;
- a failed check, or showing the solution before passing: again.

A session is one run of an exercise's clock (from `start`, `reset`, `mock`, an interview stage or a first
check, which starts the clock, to the next one); checks with no clock at all (a history from before
check started clocks) share a session per UTC day. A session gives at most one
"again" (its first failure or reveal) and one pass rating: the checks in between are one piece of
debugging, not separate recalls, and rating each would push the card's difficulty to its maximum in one
sitting. A pass after an "again" is the relearning review, as in Anki; a pass after the solution was
shown is not rated at all. A check of the untouched stub (everything not implemented) is not an attempt.

There are no same-day learning steps: an exercise takes ten to forty-five minutes, not seconds, so every
rating schedules whole days (FSRS's minimum of one), at most MAX_INTERVAL_DAYS ahead, without fuzz so
that the same history always gives the same dates.

Storage (data["schedule"][slug], see state._to_v2): the review `log` is the truth; `card` (fsrs's own
dict) and `due` (a UTC stamp) are caches written with each review, so `list` and `status` read a due
date without importing fsrs. fsrs is imported only to rate, to rank due exercises, or to migrate.
"""

from __future__ import annotations

import contextlib
from collections import Counter
from datetime import UTC, datetime
from typing import Any

from attnprep import catalogue, state
from attnprep.errors import StateUnwritable, UnknownExercise

RATINGS = ("again", "hard", "good")
MAX_INTERVAL_DAYS = 60  # an interview loop is weeks away, not years: nothing goes unseen for over two months
DESIRED_RETENTION = 0.9
# Fails beside nearly every mistake, so it says nothing about which weakness an exercise trains.
GENERIC_INVARIANTS = frozenset({"matches-reference"})
_SAME_SESSION_S = 2.0  # v1 history: two checks whose clocks started this close belong to one session


def _scheduler():
    from fsrs import Scheduler

    return Scheduler(desired_retention=DESIRED_RETENTION, learning_steps=(), relearning_steps=(),
                     maximum_interval=MAX_INTERVAL_DAYS, enable_fuzzing=False)


def _utc(at: float) -> datetime:
    return datetime.fromtimestamp(at, UTC)


def replay(log: list[dict[str, Any]]):
    """The fsrs Card after every review of `log`, in order; None for an empty log."""
    from fsrs import Card, Rating

    scheduler, card = _scheduler(), None
    for review in log:
        at = _utc(state.parse_iso(review["at"]))
        if card is None:
            card = Card(card_id=1, due=at)  # a fixed id: fsrs would otherwise read the clock and sleep 1 ms
        card, _ = scheduler.review_card(card, Rating[review["rating"].capitalize()], review_datetime=at)
    return card


def rating_for(passed: bool, hints: int, elapsed_s: float | None, target_s: int | None) -> str:
    """The FSRS rating of one outcome (see the module docstring)."""
    if not passed:
        return "again"
    over = elapsed_s is not None and target_s is not None and elapsed_s > target_s
    return "hard" if hints or over else "good"


def _why_pass(hints: int, elapsed_s: float | None, target_s: int | None) -> str:
    from attnprep.plain import minutes

    parts = [f"passed in {minutes(elapsed_s)}" if elapsed_s is not None else "passed (clock not started)"]
    if elapsed_s is not None and target_s is not None and elapsed_s > target_s:
        parts.append(f"over the {minutes(target_s)} target")
    if hints:
        parts.append(f"{hints} hint{'s' if hints != 1 else ''}")
    return ", ".join(parts)


def _why_fail(failed: list[str], status: str) -> str:
    if failed:
        return "failed " + ", ".join(failed[:4]) + (" and more" if len(failed) > 4 else "")
    return f"check ended with {status}"


def _empty_record() -> dict[str, Any]:
    return {"log": [], "card": None, "due": None, "session": None}


def _set_review(record: dict[str, Any], rating: str, at: float, why: str) -> None:
    """Append one review and refresh the cached card and due date."""
    record["log"].append({"at": state.iso(at), "rating": rating, "why": why})
    card = replay(record["log"])
    record["card"] = card.to_dict()
    record["due"] = state.iso(card.due.timestamp())


def _session_key(entry: dict[str, Any] | None, at: float) -> str:
    started = (entry or {}).get("started_at")
    return started if isinstance(started, str) else "day:" + state.iso(at)[:10]


def _session(record: dict[str, Any], key: str) -> dict[str, Any]:
    if not isinstance(record.get("session"), dict) or record["session"].get("key") != key:
        record["session"] = {"key": key, "hints": 0, "failed": False, "passed": False, "revealed": False}
    return record["session"]


def _valid_record(record: Any) -> bool:
    if not isinstance(record, dict) or not isinstance(record.get("log"), list):
        return False
    try:
        for review in record["log"]:
            if not isinstance(review, dict) or review.get("rating") not in RATINGS:
                return False
            state.parse_iso(review["at"])
        if record.get("due") is not None:
            state.parse_iso(record["due"])
    except (KeyError, TypeError, ValueError):
        return False
    return record.get("session") is None or isinstance(record["session"], dict)


def records(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """data["schedule"], with any damaged part rebuilt from the history (the rest of the file is kept)."""
    table = data.get("schedule")
    if not isinstance(table, dict):
        table = data["schedule"] = {}
    broken = [slug for slug, record in table.items() if not _valid_record(record)]
    if broken:
        rebuilt = from_history(data, broken)
        for slug in broken:
            table.pop(slug)
            if slug in rebuilt:
                table[slug] = rebuilt[slug]
    return table


def _target_s(slug: str) -> int | None:
    try:
        return catalogue.get(slug).target_s
    except UnknownExercise:  # an exercise no longer in the catalogue: rate by hints alone
        return None


def _history_sessions(history: list[Any]) -> list[tuple[float | None, list[dict[str, Any]]]]:
    """Checks of a v1 history grouped into sessions by when their clock started (or by day, without one)."""
    sessions: list[tuple[float | None, str, list[dict[str, Any]]]] = []
    for item in history:
        try:
            at = state.parse_iso(item["at"])
        except (KeyError, TypeError, ValueError):
            continue
        clock = item.get("clock_s")
        if isinstance(clock, (int, float)) and not isinstance(clock, bool):
            start, day = at - clock, ""
        else:
            start, day = None, item["at"][:10]
        if sessions:
            last_start, last_day, items = sessions[-1]
            same = (start is None and last_start is None and day == last_day) or (
                start is not None and last_start is not None and abs(start - last_start) <= _SAME_SESSION_S)
            if same:
                items.append(item)
                continue
        sessions.append((start, day, [item]))
    return [(start, items) for start, _, items in sessions]


def from_history(data: dict[str, Any], slugs: list[str] | None = None) -> dict[str, dict[str, Any]]:
    """Review records rebuilt from the check history (the v1 to v2 migration, and repairs).

    A v1 file does not say when hints were taken: its hints count against the first session that
    passed, when they are most likely to have been used.
    """
    exercises = data.get("exercises") if isinstance(data.get("exercises"), dict) else {}
    out: dict[str, dict[str, Any]] = {}
    for slug in slugs if slugs is not None else list(exercises):
        entry = exercises.get(slug)
        if not isinstance(entry, dict) or not isinstance(entry.get("history"), list):
            continue
        target = _target_s(slug)
        hints_left = entry.get("hints_used") if isinstance(entry.get("hints_used"), int) else 0
        record, last = _empty_record(), None
        for start, items in _history_sessions([h for h in entry["history"] if isinstance(h, dict)]):
            last = {"start": start, "hints": 0, "failed": False, "passed": False, "revealed": False}
            for item in items:
                passed = item.get("status") == "pass"
                if passed and not last["passed"]:
                    last["hints"], hints_left = hints_left, 0
                    last["passed"] = True
                    rating = rating_for(True, last["hints"], item.get("clock_s"), target)
                    record["log"].append({"at": item["at"], "rating": rating,
                                          "why": _why_pass(last["hints"], item.get("clock_s"), target)})
                elif not passed and not last["failed"] and not last["passed"]:
                    last["failed"] = True
                    listed = item.get("failed") if isinstance(item.get("failed"), list) else []
                    failed = [f for f in listed if isinstance(f, str)]
                    record["log"].append({"at": item["at"], "rating": "again",
                                          "why": _why_fail(failed, str(item.get("status")))})
        if not record["log"]:
            continue
        card = replay(record["log"])
        record["card"], record["due"] = card.to_dict(), state.iso(card.due.timestamp())
        started = entry.get("started_at")
        with contextlib.suppress(TypeError, ValueError):  # carry on the session whose clock is still running
            if last and last["start"] is not None and abs(state.parse_iso(started) - last["start"]) <= _SAME_SESSION_S:
                record["session"] = {"key": started, "hints": last["hints"], "failed": last["failed"],
                                     "passed": last["passed"], "revealed": False}
        out[slug] = record
    return out


def attempted(report: Any) -> bool:
    """False for a check of the untouched stub: every invariant that ran says it is not implemented."""
    ran = [i for i in report.invariants if i.status not in ("skipped", "not-judged")]
    return report.status == "pass" or not ran or not all(
        not i.passed and "raises NotImplementedError" in (i.message or "") for i in ran)


def note_check(slug: str, report: Any) -> str | None:
    """Feed one check's outcome to the schedule; the rating recorded, or None when the check rates nothing.

    Progress that cannot be saved rates nothing and says nothing here: the check's verdict never depends
    on saving, and saving the check itself is what reports it.
    """
    if not attempted(report):
        return None
    try:
        return _rate_check(slug, report)
    except StateUnwritable:
        return None


def _rate_check(slug: str, report: Any) -> str | None:
    with state.updating() as data:
        at = state.now()
        record = records(data).setdefault(slug, _empty_record())
        session = _session(record, _session_key(data["exercises"].get(slug), at))
        elapsed = report.clock["elapsed_s"] if report.clock else None
        target = report.clock["target_s"] if report.clock else _target_s(slug)
        if report.status == "pass":
            if session["passed"] or session["revealed"]:
                return None
            session["passed"] = True
            rating = rating_for(True, session["hints"], elapsed, target)
            _set_review(record, rating, at, _why_pass(session["hints"], elapsed, target))
            return rating
        if session["failed"] or session["passed"]:
            return None
        session["failed"] = True
        _set_review(record, "again", at, _why_fail(report.failed_ids, report.status))
        return "again"


def note_hints(slug: str, count: int) -> None:
    """Count hints revealed in the current session (a pass with hints rates hard)."""
    if count <= 0:
        return
    with state.updating() as data:
        record = records(data).setdefault(slug, _empty_record())
        _session(record, _session_key(data["exercises"].get(slug), state.now()))["hints"] += count


def note_reveal(slug: str) -> str | None:
    """The solution was shown: "again" unless this session already passed (then reading it is study)."""
    with state.updating() as data:
        at = state.now()
        record = records(data).setdefault(slug, _empty_record())
        session = _session(record, _session_key(data["exercises"].get(slug), at))
        if session["passed"]:
            return None
        session["revealed"] = True
        if session["failed"]:
            return None
        session["failed"] = True
        _set_review(record, "again", at, "showed the solution")
        return "again"


# Reading the schedule: cheap (no fsrs) except where noted.

def due_of(data: dict[str, Any], slug: str) -> str | None:
    """The exercise's next due date (a UTC stamp), or None if it was never rated."""
    record = (data.get("schedule") or {}).get(slug) if isinstance(data.get("schedule"), dict) else None
    due = record.get("due") if isinstance(record, dict) else None
    return due if isinstance(due, str) else None


def when(due: str | None, at: float) -> str:
    """A due date relative to `at`: "now", "in 5 h", "in 3 d"; "-" for never rated."""
    if due is None:
        return "-"
    try:
        left = state.parse_iso(due) - at
    except ValueError:
        return "-"
    if left <= 0:
        return "now"
    if left < 3600:
        return f"in {max(1, round(left / 60))} min"
    if left < 86400:
        return f"in {round(left / 3600)} h"
    return f"in {round(left / 86400)} d"


def _ago(stamp: str, at: float) -> str:
    days = (at - state.parse_iso(stamp)) / 86400
    return "today" if days < 1 else f"{int(days)} day{'s' if int(days) != 1 else ''} ago"


def overview(data: dict[str, Any], at: float) -> list[dict[str, Any]]:
    """Every exercise in catalogue order with its due date, reviews and last rating (no fsrs needed)."""
    table = records(data)
    rows = []
    for ex in catalogue.exercises():
        record = table.get(ex.slug) or _empty_record()
        card = record.get("card") if isinstance(record.get("card"), dict) else {}
        last = record["log"][-1] if record["log"] else None
        due = record.get("due")
        rows.append({"slug": ex.slug, "title": ex.title, "minutes": ex.minutes, "due": due,
                     "is_due": due is not None and state.parse_iso(due) <= at, "reviews": len(record["log"]),
                     "last_review": last["at"] if last else None, "last_rating": last["rating"] if last else None,
                     "last_why": last.get("why") if last else None,
                     "stability_d": card.get("stability"), "difficulty": card.get("difficulty")})
    return rows


def weaknesses(entries: Any) -> Counter:
    """How often each invariant id failed in these progress entries' histories (generic ids left out)."""
    counts: Counter = Counter()
    for entry in entries:
        for item in (entry or {}).get("history", []):
            if isinstance(item, dict):
                counts.update(i for i in item.get("failed", []) if isinstance(i, str) and i not in GENERIC_INVARIANTS)
    return counts


def _retrievability(card: dict[str, Any] | None, at: float) -> float:
    """FSRS's probability that the exercise would still pass now (imports fsrs)."""
    from fsrs import Card

    if not card:
        return 0.0
    try:
        return float(_scheduler().get_card_retrievability(Card.from_dict(card), _utc(at)))
    except (KeyError, TypeError, ValueError):
        return 0.0


def _command(data: dict[str, Any], slug: str) -> str:
    from pathlib import Path

    recorded = (data["exercises"].get(slug) or {}).get("file")
    return f"attnprep reset {slug}" if recorded and Path(recorded).exists() else f"attnprep start {slug}"


def plan(data: dict[str, Any], at: float) -> dict[str, Any]:
    """What to practise now, and why: `next` (one exercise) and `due` (every due exercise, ranked).

    Among due exercises the priority is (1 - retrievability) + weakness, both between 0 and 1: how likely
    you are to have forgotten it, plus the share of all your failed invariants that this exercise has
    failed on (an invariant you fail in many exercises counts for each). With nothing due, the next new
    exercise (started ones first, then catalogue order); with nothing new either, the one due soonest.
    """
    rows = overview(data, at)
    table = records(data)
    overall = weaknesses(data["exercises"].values())
    total = sum(overall.values())
    for row in rows:
        mine = weaknesses([data["exercises"].get(row["slug"])])
        row["weak_invariants"] = [{"id": i, "failures": overall[i]}
                                  for i in sorted(mine, key=lambda i: (-overall[i], i))][:3]
        row["weakness"] = round(sum(overall[i] for i in mine) / total, 4) if total else 0.0
    due = [r for r in rows if r["is_due"]]
    for row in due:
        row["retrievability"] = round(_retrievability((table.get(row["slug"]) or {}).get("card"), at), 4)
        row["priority"] = round(1 - row["retrievability"] + row["weakness"], 4)
    due.sort(key=lambda r: (-r["priority"], state.parse_iso(r["due"])))
    if due:
        pick, reason = due[0], "due"
    else:
        started = [r for r in rows if not r["reviews"] and (data["exercises"].get(r["slug"]) or {}).get("started_at")]
        fresh = [r for r in rows if not r["reviews"]]
        scheduled = sorted((r for r in rows if r["due"]), key=lambda r: state.parse_iso(r["due"]))
        pick, reason = ((started or fresh)[0], "new") if fresh else (scheduled[0], "ahead")
    return {"next": {**pick, "reason": reason, "why": _why_next(pick, reason, at),
                     "command": _command(data, pick["slug"])}, "due": due}


def _why_next(row: dict[str, Any], reason: str, at: float) -> str:
    if reason == "new":
        why = "nothing is due; this is the next exercise you have not been rated on yet"
    elif reason == "ahead":
        why = f"nothing is due and nothing is new; this one is due soonest ({when(row['due'], at)})"
    else:
        since = state.parse_iso(row["due"])
        why = "due " + ("now" if at - since < 86400 else f"since {_ago(row['due'], at)}")
    if row["last_rating"]:
        why += f"; last review {_ago(row['last_review'], at)}: {row['last_rating']} ({row['last_why']})"
    if row["weak_invariants"]:
        why += "; you fail its invariants often: " + ", ".join(
            f"{w['id']} ({w['failures']}x)" for w in row["weak_invariants"])
    return why


# The commands `next` and `review`.

def _json(payload: dict[str, Any]) -> None:
    import json
    import sys

    sys.stdout.write(json.dumps(payload, indent=2) + "\n")


def print_next(as_json: bool) -> None:
    """`attnprep next`: one exercise to practise now, the reason, and the command that starts it."""
    data, at = state.load(), state.now()
    planned = plan(data, at)
    pick = planned["next"]
    if as_json:
        keys = ("slug", "title", "minutes", "reason", "due", "why", "command", "weak_invariants", "retrievability",
                "priority", "last_rating", "last_review")
        _json({"version": 1, "now": state.iso(at), "next": {k: pick.get(k) for k in keys},
               "due": [{k: r[k] for k in ("slug", "due", "priority", "retrievability", "weakness")}
                       for r in planned["due"]]})
        return
    print(f"next: {pick['slug']} ({pick['title']}, {pick['minutes']} min)")
    print(f"why: {pick['why']}")
    print(f"run: {pick['command']}")
    if len(planned["due"]) > 1:
        print("also due: " + ", ".join(r["slug"] for r in planned["due"][1:]))


def print_review(as_json: bool) -> None:
    """`attnprep review`: every exercise with its next due date, the due ones first."""
    from attnprep import plain

    data, at = state.load(), state.now()
    rows = overview(data, at)
    if as_json:
        keys = ("slug", "due", "is_due", "reviews", "last_review", "last_rating", "stability_d", "difficulty")
        _json({"version": 1, "now": state.iso(at), "exercises": [{k: r[k] for k in keys} for r in rows]})
        return
    order = {r["slug"]: i for i, r in enumerate(rows)}
    rows = sorted(rows, key=lambda r: (r["due"] is None, state.parse_iso(r["due"]) if r["due"] else 0,
                                       order[r["slug"]]))
    colours = {"again": "red", "hard": "yellow", "good": "green"}
    plain.print_table("attnprep review schedule",
                      [("slug", "left"), ("due", "left"), ("date", "left"), ("reviews", "right"),
                       ("last", "left"), ("stability", "right")],
                      [[r["slug"], (when(r["due"], at), "bold" if r["is_due"] else ""),
                        r["due"][:10] if r["due"] else "-", str(r["reviews"]),
                        (r["last_rating"] or "new", colours.get(r["last_rating"] or "", "dim")),
                        f"{r['stability_d']:.1f} d" if isinstance(r["stability_d"], (int, float)) else "-"]
                       for r in rows])
