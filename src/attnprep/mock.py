"""Mock interviews: N unsolved exercises, one countdown, a scorecard at the end."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from attnprep import catalogue, state, workspace
from attnprep.catalogue import Exercise
from attnprep.errors import AttnprepError


class NoMock(AttnprepError):
    hint = "start one with `attnprep mock --count 2`"


def pick(data: dict[str, Any], count: int) -> list[Exercise]:
    """Unsolved exercises, the ones failed most often first, then new ones in catalogue order."""
    failed, fresh = [], []
    for ex in catalogue.exercises():
        item = data["exercises"].get(ex.slug) or state.empty_entry()
        if item["solved"]:
            continue
        misses = sum(1 for h in item["history"] if isinstance(h, dict) and h.get("status") != "pass")
        (failed if misses else fresh).append((-misses, ex))
    ranked = [ex for _, ex in sorted(failed, key=lambda p: p[0])] + [ex for _, ex in fresh]
    return ranked[:count]


def start(count: int, minutes: float | None, folder: Path) -> tuple[dict[str, Any], list[tuple[Path, Path | None]]]:
    """Write the stubs (backing up any file in the way) and start one countdown for all, all or nothing."""
    chosen = pick(state.load(), count)
    if not chosen:
        raise AttnprepError("every exercise is solved already: nothing left for a mock interview",
                            "`attnprep reset SLUG` an exercise to practise it again")
    total = minutes if minutes is not None else sum(ex.minutes for ex in chosen)
    if isinstance(total, float) and total.is_integer():
        total = int(total)
    mock: dict[str, Any] = {}

    def record(data: dict[str, Any], pairs: list[tuple[Exercise, Path]]) -> None:
        mock.update({"started_at": state.now_iso(), "minutes": total, "slugs": [ex.slug for ex, _ in pairs],
                     "hints_at_start": {}, "ended": False})
        for ex, path in reversed(pairs):  # the first exercise ends up as the one started last
            item = state.start_entry(data, ex.slug, path, at=mock["started_at"])
            mock["hints_at_start"][ex.slug] = item["hints_used"]
        data["mock"] = mock

    written = workspace.start_exercises(chosen, folder, force=True, record=record)
    return mock, written


def remaining_s(mock: dict[str, Any], at: float | None = None) -> float:
    return mock["minutes"] * 60 - ((at or state.now()) - state.parse_iso(mock["started_at"]))


def active() -> dict[str, Any] | None:
    mock = state.load().get("mock")
    return mock if mock and not mock.get("ended") else None


def scorecard(data: dict[str, Any], mock: dict[str, Any]) -> list[dict[str, Any]]:
    """Per exercise: solved during the mock, time to the first pass, hints used, invariants failed."""
    since = state.parse_iso(mock["started_at"])
    rows = []
    for slug in mock["slugs"]:
        item = data["exercises"].get(slug) or state.empty_entry()
        during = [h for h in item["history"] if isinstance(h, dict) and state.parse_iso(h["at"]) >= since]
        first_pass = next((h for h in during if h["status"] == "pass"), None)
        failed: list[str] = []
        for h in during:
            failed += [i for i in h.get("failed", []) if i not in failed]
        rows.append({"slug": slug, "solved": first_pass is not None,
                     "time_s": first_pass.get("clock_s") if first_pass else None, "checks": len(during),
                     "hints_used": item["hints_used"] - mock["hints_at_start"].get(slug, 0),
                     "failed_on_the_way": failed})
    return rows


def end() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """End the running mock and return it with its scorecard."""
    with state.updating() as data:
        mock = data.get("mock")
        if not mock or mock.get("ended"):
            raise NoMock("no mock interview is running")
        mock["ended"] = True
        return mock, scorecard(data, mock)
