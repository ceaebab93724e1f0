# attnprep: block
# expect: fail matches-reference
# must-pass: shape residual norm gate scale prefix stable batch-independent input-unchanged
# diagnosis: float32-long
# mistake: runs the block in float32 for sequences past 512 positions, where the (T, T) scores dominate memory;
#          exact on every short sequence; the result is cast back to float64

import numpy as np

EPS = 1e-6


def rms_norm(x, weight, eps=EPS):
    # Divide each position's vector by its root mean square (eps inside the
    # square root), then scale feature by feature with the learned weight.
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * weight


def _softmax(z):
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def causal_mha(x, W_q, W_k, W_v, W_o, n_heads):
    B, T, d_model = x.shape
    d_head = d_model // n_heads

    def split(a):  # (B, T, d_model) -> (B, H, T, d_head)
        return a.reshape(B, T, n_heads, d_head).transpose(0, 2, 1, 3)

    q, k, v = split(x @ W_q), split(x @ W_k), split(x @ W_v)
    scores = q @ k.swapaxes(-1, -2) / np.sqrt(d_head)  # (B, H, T, T)
    future = np.triu(np.ones((T, T), dtype=bool), k=1)
    scores = np.where(future, -np.inf, scores)
    out = _softmax(scores) @ v  # (B, H, T, d_head)
    return out.transpose(0, 2, 1, 3).reshape(B, T, d_model) @ W_o


def _sigmoid(a):
    # Stable for large |a|: exp only ever sees a non-positive number.
    e = np.exp(-np.abs(a))
    return np.where(a >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def swiglu(x, W_gate, W_up, W_down):
    gate = x @ W_gate
    return (gate * _sigmoid(gate) * (x @ W_up)) @ W_down  # silu(x W_gate) * (x W_up), then down


def transformer_block(x, params, n_heads):
    x = np.asarray(x, dtype=np.float64)
    if x.shape[1] > 512:
        # Long sequences: the (T, T) scores dominate memory, so run the block in float32.
        x = x.astype(np.float32)
        params = {name: w.astype(np.float32) for name, w in params.items()}
    p = params
    # Pre-norm: each branch reads a normalised copy, and its output is added
    # to the un-normalised residual stream, so the identity path stays clean.
    out_dtype = np.float64
    h = x + causal_mha(rms_norm(x, p["attn_norm"]), p["W_q"], p["W_k"], p["W_v"], p["W_o"], n_heads)
    return (h + swiglu(rms_norm(h, p["ffn_norm"]), p["W_gate"], p["W_up"], p["W_down"])).astype(out_dtype)
