"""`attnprep demo`: grade a built-in wrong solution and the reference, no set-up needed."""

from __future__ import annotations

from attnprep import catalogue, render
from attnprep.engine import grade

DEMO_SLUG = "causal"


def run() -> None:
    ex = catalogue.get(DEMO_SLUG)
    wrong = (ex.folder / "demo_wrong.py").read_text(encoding="utf-8")
    render.out.rule(f"attnprep demo: the `{ex.slug}` exercise ({ex.title})")
    render.out.print("A learner's first attempt. It looks right, and it is not:\n")
    render.code(wrong, "demo_wrong.py")
    render.report(grade(ex, wrong, "demo_wrong.py"))
    render.out.print("\nThe reference solution passes every invariant:\n")
    right = ex.solution_path.read_text(encoding="utf-8")
    render.report(grade(ex, right, f"{ex.slug}.py"))
    render.out.rule()
    render.out.print(f"Your turn: `attnprep list`, then `attnprep start {ex.slug}`.")
