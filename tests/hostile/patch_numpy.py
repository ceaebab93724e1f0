# attnprep: softmax
# expect-status: fail
# expect-invariant: stable=fail
import numpy as np

for name in ("allclose", "isclose", "array_equal", "isfinite", "all", "any"):
    setattr(np, name, lambda *a, **k: True)
np.testing.assert_allclose = lambda *a, **k: None


def softmax(z, axis=-1):
    e = np.exp(z)
    return e / e.sum(axis=axis, keepdims=True)
