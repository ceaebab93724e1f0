"""The from-scratch rule: a solution may not call the library's implementation of what the exercise asks for.

Judged statically in the parent from the source (ast), never by running it: every name the file refers to is
resolved through its imports (`import torch.nn.functional as F`, `from scipy.special import softmax as sm`)
to a dotted library name and compared with the exercise's list. Other exercises may use these freely: a
causal mask may call `torch.softmax`, the softmax exercise may not.
"""

from __future__ import annotations

import ast
from typing import NamedTuple

ID = "from-scratch"
DESCRIPTION = "does not call the library's own implementation of what the exercise asks you to write"

_ATTENTION = (
    ("torch.nn.functional.scaled_dot_product_attention", "PyTorch's fused attention"),
    ("torch.nn.MultiheadAttention", "PyTorch's multi-head attention module"),
    ("torch.nn.modules.activation.MultiheadAttention", "PyTorch's multi-head attention module"),
    ("torch.nn.functional.multi_head_attention_forward", "PyTorch's multi-head attention"),
    ("jax.nn.dot_product_attention", "JAX's attention"),
)
_SOFTMAX = (
    ("scipy.special.softmax", "SciPy's softmax"),
    ("scipy.special.log_softmax", "SciPy's log-softmax"),
    ("torch.softmax", "PyTorch's softmax"),
    ("torch.nn.functional.softmax", "PyTorch's softmax"),
    ("torch.special.softmax", "PyTorch's softmax"),
    ("torch.nn.Softmax", "PyTorch's softmax module"),
    ("torch.log_softmax", "PyTorch's log-softmax"),
    ("torch.nn.functional.log_softmax", "PyTorch's log-softmax"),
    ("jax.nn.softmax", "JAX's softmax"),
)
_NORMS = (
    ("torch.nn.functional.rms_norm", "PyTorch's RMSNorm"),
    ("torch.nn.RMSNorm", "PyTorch's RMSNorm module"),
    ("torch.nn.functional.layer_norm", "PyTorch's layer norm"),
    ("torch.nn.LayerNorm", "PyTorch's layer-norm module"),
)
_XENT = (
    ("torch.nn.functional.cross_entropy", "PyTorch's cross-entropy"),
    ("torch.nn.CrossEntropyLoss", "PyTorch's cross-entropy module"),
    ("scipy.special.log_softmax", "SciPy's log-softmax, which does the stabilising for you"),
)
# Tensor methods that are the library's implementation, judged only in files that import torch.
# logsumexp is not softmax, only a step of one stable way to write it (np.logaddexp.reduce is the NumPy
# spelling): the instructions never rule it out, so exp(z - logsumexp(z)) is the learner's own softmax.
_SOFTMAX_METHODS = ("softmax", "log_softmax")

FORBIDDEN: dict[str, tuple[tuple[str, str], ...]] = {
    "softmax": _SOFTMAX,
    "attention": _ATTENTION, "causal": _ATTENTION, "mha": _ATTENTION, "gqa": _ATTENTION, "window": _ATTENTION,
    "flash": _ATTENTION, "decode": _ATTENTION, "block": _ATTENTION + _NORMS,
    "rmsnorm": _NORMS,
    "xent": _XENT,
}
METHODS: dict[str, tuple[str, ...]] = {"softmax": _SOFTMAX_METHODS}


class Shortcut(NamedTuple):
    line: int
    name: str  # the dotted library name, as resolved
    what: str  # what it is, for the message


def applies(slug: str) -> bool:
    return slug in FORBIDDEN


def _aliases(tree: ast.AST) -> dict[str, str]:
    """Local name -> the dotted module or object it was imported as."""
    names: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    names[alias.asname] = alias.name
                else:
                    top = alias.name.split(".")[0]
                    names[top] = top
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return names


def _dotted(node: ast.AST, aliases: dict[str, str]) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name) or node.id not in aliases:
        return None
    return ".".join([aliases[node.id], *reversed(parts)])


def shortcuts(slug: str, source: str) -> list[Shortcut]:
    """Every reference in `source` to the library's implementation of exercise `slug`, by line."""
    forbidden = FORBIDDEN.get(slug, ())
    methods = METHODS.get(slug, ())
    from attnprep.wire import PARSE_LOCK  # the judge's NumPy is loaded by now

    try:
        with PARSE_LOCK:  # grading runs in threads (grade --jobs): one AST parse at a time, np.load's too
            tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    aliases = _aliases(tree)
    uses_torch = any(v.split(".")[0] == "torch" for v in aliases.values())
    found: list[Shortcut] = []
    seen: set[tuple[int, str]] = set()
    for node in ast.walk(tree):
        name = None
        if isinstance(node, (ast.Attribute, ast.Name)) and isinstance(getattr(node, "ctx", None), ast.Load):
            name = _dotted(node, aliases)
        hit = next(((n, what) for n, what in forbidden if name and name == n), None)
        if hit is None and uses_torch and isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in methods and _dotted(node.func, aliases) is None:
            hit = (f"Tensor.{node.func.attr}", f"PyTorch's tensor method .{node.func.attr}()")
        if hit and (node.lineno, hit[0]) not in seen:
            seen.add((node.lineno, hit[0]))
            found.append(Shortcut(node.lineno, hit[0], hit[1]))
    return sorted(found)


def verdict(slug: str, source: str) -> tuple[str, str | None]:
    """(status, message) of the from-scratch invariant for this source."""
    found = shortcuts(slug, source)
    if not found:
        return "pass", None
    first = found[0]
    more = f" ({len(found) - 1} more such use{'s' if len(found) > 2 else ''})" if len(found) > 1 else ""
    return "fail", (f"line {first.line} uses {first.name}, {first.what}: this exercise asks you to write it "
                    f"yourself from basic array operations{more}")
