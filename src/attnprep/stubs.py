"""Render an exercise's stub file from its jinja2 template, for NumPy or for PyTorch."""

from __future__ import annotations

import re

from attnprep.catalogue import Exercise, data_root

# The NumPy stubs' words for what a PyTorch stub receives and returns (a stub may instead have a
# stub_torch.py.j2 of its own, where the difference is more than words).
_TORCH_WORDS = (
    (r"\bdict of NumPy arrays\b", "dict of tensors"),
    (r"\bNumPy (integer|float scalar)\b", r"0-d tensor"),
    (r"\bint array\b", "int64 tensor"),
    (r"\binteger array\b", "int64 tensor"),
    (r"\ban array\b", "a tensor"),
    (r"\barrays\b", "tensors"),
    (r"\barray\b", "tensor"),
)


def _torch_words(text: str) -> str:
    for pattern, words in _TORCH_WORDS:
        text = re.sub(pattern, words, text)
    return text


def render_stub(exercise: Exercise, filename: str | None = None, framework: str = "numpy") -> str:
    """The stub's text: first line `# attnprep: SLUG` (`# attnprep: SLUG torch` for PyTorch), bodies that
    raise NotImplementedError."""
    import jinja2  # heavy-ish; only `start`, `reset` and the tests need it

    # A pack's templates come first; the built-in folder after them provides _base.py.j2 to extend.
    folders = [str(exercise.root / "exercises"), str(data_root() / "exercises")]
    loader: jinja2.BaseLoader = jinja2.FileSystemLoader(list(dict.fromkeys(folders)))
    name = f"{exercise.slug}/stub.py.j2"
    torch = framework == "torch"
    if torch:
        # The same exercise templates, extending the PyTorch header in place of the NumPy one.
        base, _, _ = loader.get_source(jinja2.Environment(), "_base_torch.py.j2")
        loader = jinja2.ChoiceLoader([jinja2.DictLoader({"_base.py.j2": base}), loader])
        try:
            loader.get_source(jinja2.Environment(), f"{exercise.slug}/stub_torch.py.j2")
            name = f"{exercise.slug}/stub_torch.py.j2"
        except jinja2.TemplateNotFound:
            pass
    env = jinja2.Environment(loader=loader, keep_trailing_newline=True, undefined=jinja2.StrictUndefined,
                             autoescape=False)
    text = env.get_template(name).render(slug=exercise.slug, title=exercise.title, minutes=exercise.minutes,
                                         difficulty=exercise.difficulty, filename=filename or f"{exercise.slug}.py")
    if torch:
        head, _, body = text.partition("\nimport torch\n")
        text = head + "\nimport torch\n" + _torch_words(body)
    return text.rstrip() + "\n"
