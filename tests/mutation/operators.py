"""Two cosmic-ray operators for the mistakes of NumPy attention code that cosmic-ray's own operators cannot make.

cosmic-ray swaps operators, constants and keywords; a learner more often calls the sibling function
(`min` for `max`, `tril` for `triu`, `tile` for `repeat`, a `float32` cast) or passes the other string
option (`side="right"`, no stable sort). These are ordinary cosmic-ray `Operator` subclasses, used by
tests/mutation/core.py beside cosmic-ray's (provider name `attnprep/`), not registered as a plug-in.
"""

from __future__ import annotations

import parso.python.tree
from cosmic_ray.operators.operator import Example, Operator

PROVIDER = "attnprep"


class ReplaceNumpyName(Operator):
    """Swap a NumPy (or builtin) function or dtype name for its sibling: max for min, triu for tril, ..."""

    SWAPS = {
        "max": ("min",), "min": ("max",), "argmax": ("argmin",), "argmin": ("argmax",),
        "maximum": ("minimum",), "minimum": ("maximum",),
        "amax": ("amin",), "amin": ("amax",),
        "triu": ("tril",), "tril": ("triu",),
        "repeat": ("tile",), "tile": ("repeat",),
        "sum": ("mean",), "mean": ("sum",),
        "float64": ("float32",),
        "floor": ("ceil",), "ceil": ("floor",),
        "sin": ("cos",), "cos": ("sin",),
    }

    def mutation_positions(self, node):
        if isinstance(node, parso.python.tree.Name) and node.value in self.SWAPS and not _is_definition(node):
            for _ in self.SWAPS[node.value]:
                yield (node.start_pos, node.end_pos)

    def mutate(self, node, index):
        node.value = self.SWAPS[node.value][index]
        return node

    @classmethod
    def examples(cls):
        return (Example("m = np.max(z)", "m = np.min(z)"), Example("a = np.triu(b, k=1)", "a = np.tril(b, k=1)"))


class ReplaceStringOption(Operator):
    """Swap a string option for its alternative: side="left" for "right", a stable sort for the default one."""

    SWAPS = {"left": ("right",), "right": ("left",), "stable": ("quicksort",)}

    def mutation_positions(self, node):
        if isinstance(node, parso.python.tree.String) and _unquoted(node) in self.SWAPS:
            for _ in self.SWAPS[_unquoted(node)]:
                yield (node.start_pos, node.end_pos)

    def mutate(self, node, index):
        quote = node.value[-1]
        node.value = f"{quote}{self.SWAPS[_unquoted(node)][index]}{quote}"
        return node

    @classmethod
    def examples(cls):
        return (Example('i = np.searchsorted(c, p, side="left")', 'i = np.searchsorted(c, p, side="right")'),)


def _unquoted(node) -> str | None:
    value = node.value
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"" and value[:1] * 3 != value[:3]:
        return value[1:-1]
    return None


def _is_definition(node) -> bool:
    """A name being defined (def max, x.max = ..., an argument) is not a call to swap."""
    return node.is_definition() or (node.parent is not None and node.parent.type in ("funcdef", "classdef"))


OPERATORS = {f"{PROVIDER}/{cls.__name__}": cls for cls in (ReplaceNumpyName, ReplaceStringOption)}
