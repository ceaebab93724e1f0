"""Render an exercise's stub file from its jinja2 template."""

from __future__ import annotations

from attnprep.catalogue import Exercise, data_root


def render_stub(exercise: Exercise, filename: str | None = None) -> str:
    """The stub's text: first line `# attnprep: SLUG`, bodies that raise NotImplementedError."""
    import jinja2  # heavy-ish; only `start`, `reset` and the tests need it

    # A pack's templates come first; the built-in folder after them provides _base.py.j2 to extend.
    folders = [str(exercise.root / "exercises"), str(data_root() / "exercises")]
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(list(dict.fromkeys(folders))),
        keep_trailing_newline=True, undefined=jinja2.StrictUndefined, autoescape=False,
    )
    template = env.get_template(f"{exercise.slug}/stub.py.j2")
    text = template.render(slug=exercise.slug, title=exercise.title, minutes=exercise.minutes,
                           difficulty=exercise.difficulty,
                           filename=filename or f"{exercise.slug}.py")
    return text.rstrip() + "\n"
