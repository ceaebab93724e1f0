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


def _bars(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Geometry of the inline SVG chart: time to first pass against the target, per exercise."""
    width, left, bar_h, gap = 640, 110, 16, 8
    longest = max([r["target_s"] for r in rows] + [r["first_pass_s"] or 0 for r in rows] + [1])
    scale = (width - left - 20) / longest
    bars = []
    for i, r in enumerate(rows):
        y = 10 + i * (bar_h + gap)
        passed = r["first_pass_s"]
        bars.append({"slug": r["slug"], "y": y, "text_y": y + bar_h - 4,
                     "target_x": left + r["target_s"] * scale,
                     "width": (passed or 0) * scale, "over": passed is not None and passed > r["target_s"],
                     "passed": passed is not None})
    return {"width": width, "height": 20 + len(rows) * (bar_h + gap), "left": left, "bar_h": bar_h,
            "bars": bars}


def write_html(path: Path) -> None:
    import jinja2

    from attnprep.render import minutes

    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(Path(__file__).parent / "templates")),
                             autoescape=True, undefined=jinja2.StrictUndefined)
    env.filters["clock"] = minutes
    rows = summary()
    html = env.get_template("report.html.j2").render(rows=rows, chart=_bars(rows), generated=state.now_iso(),
                                                     solved=sum(r["solved"] for r in rows))
    path.write_text(html, encoding="utf-8")
