"""Which framework a solution is written in (NumPy or PyTorch), and what the worker needs for each."""

from __future__ import annotations

import re
from collections import namedtuple

from attnprep.errors import AttnprepError
from attnprep.exitcodes import ExitCode

NUMPY, TORCH = "numpy", "torch"
TORCH_INSTALL = "pip install 'attnprep[torch]'"
# The stub's first line may name the framework after the slug: `# attnprep: softmax torch`.
FIRST_LINE = re.compile(r"^#\s*attnprep:\s*([A-Za-z0-9_-]+)(?:\s+(torch|numpy))?\s*$")
# `import torch`, `import torch.nn.functional as F`, `from torch import nn`, `from torch.nn import functional`,
# at the start of a line (indented too: an import inside a function counts).
_TORCH_IMPORT = re.compile(r"^[ \t]*(?:import[ \t]+torch\b|from[ \t]+torch(?:\.[\w.]+)?[ \t]+import\b)", re.M)
# Exercises with no tensors in them: pure arithmetic on Python integers, the same in either framework.
NO_TENSORS = ("kvcache", "params")


class Limits(namedtuple("Limits", "memory_bytes import_budget_s import_cpu_s")):
    """What a worker for one framework may use, and how long its framework's import may take: memory_bytes (its
    RLIMIT_AS), import_budget_s (the framework's import, before the candidate's clock starts; 0: none needed) and
    import_cpu_s (CPU seconds added to the worker's limit for that import). A namedtuple: this module is imported
    before `check` starts its worker, and dataclasses would add a tenth of a second on a slow machine."""

    __slots__ = ()


# torch maps far more address space than it uses (2 GiB is not enough for `import torch`; 4 GiB is), and its
# import takes 2-4 s on a quiet machine: done in the worker before it says it is ready, outside --timeout.
LIMITS = {NUMPY: Limits(2 * 1024**3, 0.0, 0), TORCH: Limits(4 * 1024**3, 30.0, 30)}


class FrameworkMissing(AttnprepError):
    """A PyTorch solution, and no torch installed where attnprep runs."""

    exit_code = ExitCode.NOT_PASSED
    hint = "or rewrite the file with NumPy only (`attnprep start SLUG` writes a NumPy stub)"


class NoTorchStub(AttnprepError):
    """`--torch` for an exercise without tensors."""


def detect(source: str) -> str:
    """TORCH if the first line says so (`# attnprep: SLUG torch`) or the file imports torch, else NUMPY."""
    first = source.lstrip("\ufeff").split("\n", 1)[0].rstrip("\r")
    match = FIRST_LINE.match(first)
    if match and match.group(2):
        return match.group(2)
    if not _TORCH_IMPORT.search(source):
        return NUMPY
    return TORCH if _imports_torch_for_real(source) else NUMPY


_OPTIONAL = ("ImportError", "ModuleNotFoundError", "Exception", "BaseException")


def _imports_torch_for_real(source: str) -> bool:
    """An import of torch outside a `try` that catches its ImportError: `try: import torch / except ImportError:
    torch = None` is a NumPy file keeping torch optional. A file that does not parse counts its imports as written
    (its syntax error is reported either way)."""
    import ast

    try:
        tree = ast.parse(source.lstrip("\ufeff"))
    except (SyntaxError, ValueError):
        return True
    guarded: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Try) and any(
                h.type is None or any(isinstance(n, ast.Name) and n.id in _OPTIONAL for n in ast.walk(h.type))
                for h in node.handlers):
            guarded.update(id(inner) for stmt in node.body for inner in ast.walk(stmt))
    for node in ast.walk(tree):
        names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                 [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])
        if any(n == "torch" or n.startswith("torch.") for n in names) and id(node) not in guarded:
            return True
    return False


def installed(framework: str) -> bool:
    """Is the framework importable here? Asked of the import system without importing it."""
    if framework == NUMPY:
        return True
    import importlib.util

    try:
        return importlib.util.find_spec(framework) is not None
    except (ImportError, ValueError):
        return False


def require(framework: str, shown: str) -> None:
    """Raise FrameworkMissing (exit 1) for a PyTorch file where torch is not installed."""
    if not installed(framework):
        raise FrameworkMissing(f"{shown} is a PyTorch solution, and PyTorch is not installed: run {TORCH_INSTALL}")


def limits(framework: str) -> Limits:
    return LIMITS.get(framework, LIMITS[NUMPY])


def has_tensors(slug: str) -> bool:
    return slug not in NO_TENSORS
