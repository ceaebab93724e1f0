"""`attnprep report`: the progress history, in the terminal or as one self-contained HTML page."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from attnprep import catalogue, schedule, state


def summary() -> list[dict[str, Any]]:
    """Per exercise, in catalogue order: attempts, hints, first pass against target, failures."""
    data = state.load()
    rows = []
    for ex in catalogue.exercises():
        item = data["exercises"].get(ex.slug) or state.empty_entry()
        failures = Counter(i for h in item["history"] if isinstance(h, dict) for i in h.get("failed", []))
        rows.append({"slug": ex.slug, "title": ex.title, "target_s": ex.target_s, "attempts": item["attempts"],
                     "hints_used": item["hints_used"], "first_pass_s": item["first_pass_s"],
                     "best_s": item["best_s"], "solved": item["solved"],
                     "top_failures": failures.most_common(3), "checks": len(item["history"]),
                     "due": schedule.due_of(data, ex.slug)})
    return rows


_STEPS_MIN = (1, 2, 5, 10, 15, 20, 30, 60, 120, 240, 480, 960)
# A time longer than this many times the longest target is an outlier: it is drawn to the end of the axis,
# marked as cut, and its value printed, so one very long attempt does not squash every other bar.
OUTLIER_FACTOR = 2.0


def _pct(seconds: float, top: float) -> float:
    return round(100.0 * min(seconds, top) / top, 2)


def chart(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The time-to-first-pass chart: bars and target marks in percent of the axis, which follows the page width.

    The axis runs from 0 to a round number of minutes that holds every target
    and every time up to OUTLIER_FACTOR times the longest target; a longer
    time is capped at the end of the axis with its value printed.
    """
    from attnprep.plain import minutes

    longest_target = max([r["target_s"] for r in rows] + [60])
    limit = OUTLIER_FACTOR * longest_target
    times = [r["first_pass_s"] for r in rows if r["first_pass_s"] is not None]
    top = max([longest_target] + [t for t in times if t <= limit])
    step = next((m * 60 for m in _STEPS_MIN if top / (m * 60) <= 6), _STEPS_MIN[-1] * 60)
    top = step * -(-top // step)  # round up to a whole tick
    ticks = [{"pct": _pct(k * step, top), "label": f"{k * step // 60:g}"} for k in range(int(top // step) + 1)]
    bars = []
    for r in rows:
        passed = r["first_pass_s"]
        bar = {"slug": r["slug"], "target_pct": _pct(r["target_s"], top), "target": minutes(r["target_s"]),
               "passed": passed is not None, "over": passed is not None and passed > r["target_s"],
               "capped": passed is not None and passed > top, "value": minutes(passed), "width_pct": 0.0}
        if passed is not None:
            bar["width_pct"] = max(_pct(passed, top), 0.3)  # a pass in seconds still shows as a sliver
        bar["label_inside"] = bar["width_pct"] > 85  # no room after the bar: print the value inside its end
        bars.append(bar)
    return {"ticks": ticks, "bars": bars, "top_minutes": top / 60, "cut_after": minutes(top)}


def write_html(path: Path) -> None:
    import jinja2

    from attnprep.render import minutes

    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(Path(__file__).parent / "templates")),
                             autoescape=True, undefined=jinja2.StrictUndefined)
    env.filters["clock"] = minutes
    rows = summary()
    html = env.get_template("report.html.j2").render(rows=rows, chart=chart(rows), generated=state.now_iso(),
                                                     solved=sum(r["solved"] for r in rows))
    path.write_text(html, encoding="utf-8")
