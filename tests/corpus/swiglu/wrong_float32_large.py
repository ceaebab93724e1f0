# attnprep: swiglu
# expect: fail matches-reference
# must-pass: shape position-wise gate stable input-unchanged
# mistake: runs big batches through float32 matmuls (above 8k positions' worth of hidden units) to halve their
#          memory, then casts back: the result is float64 but has float32's digits
# diagnosis: float32-arithmetic
import numpy as np


def _silu(a):
    return a * 0.5 * (1.0 + np.tanh(0.5 * a))


def swiglu(x, W_gate, W_up, W_down):
    x = np.asarray(x, dtype=np.float64)
    if x.size // x.shape[-1] * W_gate.shape[1] > 8_192:
        x, W_gate, W_up, W_down = (a.astype(np.float32) for a in (x, W_gate, W_up, W_down))
    return ((_silu(x @ W_gate) * (x @ W_up)) @ W_down).astype(np.float64)
