"""Interviews with follow-ups: a track of exercises under one countdown, each stage written when the last passes.

State lives in data["interview"]: the track, when it started, the folder, and one record per stage
reached (its file, when its clock started, the hints it began with, the checks made and the invariants
they failed until it passed, and when it passed). `check` calls after_check once it has recorded its
result; a pass of the current stage writes the next stage's stub. A check of the untouched stub is not
counted as an attempt (the same rule as the review schedule's).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from attnprep import catalogue, schedule, state, workspace
from attnprep.catalogue import Track
from attnprep.errors import AttnprepError, StateUnwritable


class NoInterview(AttnprepError):
    hint = "start one with `attnprep interview TRACK`; `attnprep interview --list` shows the tracks"


class UnknownTrack(AttnprepError):
    def __init__(self, name: str) -> None:
        import difflib

        names = [t.name for t in catalogue.tracks()]
        close = difflib.get_close_matches(name, names, n=1, cutoff=0.4)
        super().__init__(f"unknown interview track `{name}`",
                         f"did you mean `{close[0]}`?" if close else "`attnprep interview --list` shows the tracks")


def track(name: str) -> Track:
    for t in catalogue.tracks():
        if t.name == name:
            return t
    raise UnknownTrack(name)


def listing() -> list[dict[str, Any]]:
    """Every track as data: name, title, target minutes and stages."""
    return [{"name": t.name, "title": t.title, "minutes": t.minutes,
             "stages": [{"slug": s.slug, "ask": s.ask} for s in t.stages]} for t in catalogue.tracks()]


def _begin_stage(data: dict[str, Any], interview: dict[str, Any], index: int) -> dict[str, Any]:
    """Write stage `index`'s stub (an existing file is kept as a backup) and start its clock."""
    t = track(interview["track"])
    ex = catalogue.get(t.stages[index].slug)
    path, kept = workspace.write_stub(ex, Path(interview["dir"]), force=True)
    item = state.entry(data, ex.slug)
    item["started_at"], item["file"] = state.now_iso(), str(path)
    data["last_started"] = ex.slug
    stage = {"slug": ex.slug, "file": str(path), "started_at": item["started_at"],
             "hints_at_start": item["hints_used"], "passed_at": None, "time_s": None, "checks": 0, "failed": []}
    interview["stages"].append(stage)
    return {"stage": index + 1, "of": len(t.stages), "slug": ex.slug, "ask": t.stages[index].ask,
            "file": str(path), "kept": str(kept) if kept else None, "minutes": ex.minutes}


def start(name: str, folder: Path) -> tuple[dict[str, Any], dict[str, Any], bool]:
    """Start `name`: one countdown, and only stage 1's stub. Returns (interview, stage 1, replaced one)."""
    t = track(name)
    with state.updating() as data:
        replaced = active_in(data) is not None
        interview = {"track": t.name, "started_at": state.now_iso(), "minutes": t.minutes,
                     "dir": str(folder.resolve()), "stages": [], "ended": False, "ended_at": None}
        first = _begin_stage(data, interview, 0)
        data["interview"] = interview
    return interview, first, replaced


def active_in(data: dict[str, Any]) -> dict[str, Any] | None:
    interview = data.get("interview")
    if not (isinstance(interview, dict) and isinstance(interview.get("stages"), list) and interview["stages"]):
        return None
    return None if interview.get("ended") else interview


def remaining_s(interview: dict[str, Any], at: float | None = None) -> float:
    return interview["minutes"] * 60 - ((state.now() if at is None else at) - state.parse_iso(interview["started_at"]))


def after_check(slug: str, report: Any) -> dict[str, Any] | None:
    """After `check` recorded `report`: None unless `slug` is the running interview's current stage.

    A pass of that stage marks it passed and writes the next stage's stub (`next`), or completes the
    track (`complete`); when the countdown has run out the interview ends (`time_up`, with `scorecard`).
    Progress that cannot be saved gives None: the check's own verdict stands.
    """
    try:
        return _advance(slug, report)
    except StateUnwritable:
        return None


def _advance(slug: str, report: Any) -> dict[str, Any] | None:
    with state.updating() as data:
        interview = active_in(data)
        if interview is None or interview["stages"][-1]["slug"] != slug:
            return None
        t = track(interview["track"])
        stage, at = interview["stages"][-1], state.now()
        n = len(interview["stages"])
        note: dict[str, Any] = {"track": t.name, "stage": n, "of": len(t.stages)}
        if stage["passed_at"] is None and schedule.attempted(report):  # a check of the bare stub is no attempt
            stage["checks"] = stage.get("checks", 0) + 1
            stage["failed"] = stage.get("failed", []) + [i for i in report.failed_ids
                                                         if i not in stage.get("failed", [])]
        if report.status == "pass" and stage["passed_at"] is None:
            stage["passed_at"] = state.iso(at)
            stage["time_s"] = round(at - state.parse_iso(stage["started_at"]), 1)
            note["passed"] = {"slug": slug, "time_s": stage["time_s"]}
            if n < len(t.stages):
                try:
                    note["next"] = _begin_stage(data, interview, n)
                except AttnprepError as exc:  # the check itself stands; say why the follow-up is missing
                    note["error"] = f"{exc} ({exc.hint})" if exc.hint else str(exc)
            else:
                note["complete"] = True
        left = remaining_s(interview, at)
        note["remaining_s"] = round(max(left, 0.0), 1)
        finished = all(s["passed_at"] for s in interview["stages"]) and len(interview["stages"]) == len(t.stages)
        if left <= 0 and not finished:  # the countdown ran out: the interview is over
            interview["ended"], interview["ended_at"] = True, state.iso(at)
            note["time_up"] = True
            note["scorecard"] = scorecard(data, interview)
        return note


def scorecard(data: dict[str, Any], interview: dict[str, Any]) -> dict[str, Any]:
    """Per stage: time, hints, checks, invariants failed on the way; the total against the track's target."""
    t = track(interview["track"])
    end = state.parse_iso(interview["ended_at"]) if interview.get("ended_at") else state.now()
    stages = []
    for i, spec in enumerate(t.stages):
        reached = interview["stages"][i] if i < len(interview["stages"]) else None
        row: dict[str, Any] = {"stage": i + 1, "slug": spec.slug, "ask": spec.ask, "reached": reached is not None,
                               "passed": False, "time_s": None, "hints_used": 0, "checks": 0,
                               "failed_on_the_way": []}
        if reached:
            item = data["exercises"].get(spec.slug) or state.empty_entry()
            since = state.parse_iso(reached["started_at"])
            row["failed_on_the_way"], row["checks"] = list(reached.get("failed", [])), reached.get("checks", 0)
            row["passed"] = reached["passed_at"] is not None
            row["time_s"] = reached["time_s"] if row["passed"] else round(end - since, 1)
            row["hints_used"] = max(0, item["hints_used"] - reached["hints_at_start"])
        stages.append(row)
    passed = [s for s in interview["stages"] if s["passed_at"]]
    complete = len(passed) == len(t.stages)
    finish = state.parse_iso(passed[-1]["passed_at"]) if complete else end
    total = round(finish - state.parse_iso(interview["started_at"]), 1)
    target = interview["minutes"] * 60
    return {"version": 1, "track": t.name, "title": t.title, "started_at": interview["started_at"],
            "ended_at": interview.get("ended_at"), "minutes": interview["minutes"], "target_s": target,
            "total_s": total, "complete": complete, "within_target": complete and total <= target,
            "stages_passed": len(passed), "stages": stages}


def end() -> dict[str, Any]:
    """End the running interview and return its scorecard."""
    with state.updating() as data:
        interview = active_in(data)
        if interview is None:
            raise NoInterview("no interview is running")
        interview["ended"], interview["ended_at"] = True, state.now_iso()
        return scorecard(data, interview)


def command(name: str | None, folder: Path, *, show_list: bool, finish: bool, as_json: bool) -> None:
    """`attnprep interview`: --list, TRACK, or --end (exactly one of them)."""
    import json
    import sys

    chosen = [what for what, given in (("TRACK", name is not None), ("--list", show_list), ("--end", finish)) if given]
    if len(chosen) != 1:
        raise AttnprepError("give a TRACK to start, or --list, or --end" if not chosen
                            else f"{' and '.join(chosen)} do not go together",
                            "`attnprep interview --list` shows the tracks; `attnprep interview heads` starts one")
    if as_json and name is not None:
        raise AttnprepError("--json goes with --list or --end", "drop --json to start a track")
    from attnprep import render

    if show_list:
        tracks = listing()
        if as_json:
            sys.stdout.write(json.dumps({"version": 1, "tracks": tracks}, indent=2) + "\n")
            return
        from attnprep import plain

        plain.print_table("attnprep interview tracks",
                          [("track", "left"), ("stages", "left"), ("target", "right"), ("title", "left")],
                          [[t["name"], " → ".join(s["slug"] for s in t["stages"]), f"{t['minutes']} min", t["title"]]
                           for t in tracks])
        return
    if finish:
        card = end()
        if as_json:
            sys.stdout.write(json.dumps(card, indent=2) + "\n")
        else:
            render.interview_scorecard(card)
        return
    started, first, replaced = start(name, folder)
    if replaced:
        render.warning("an interview was still running; it is replaced by this one")
    render.interview_started(started, first)
