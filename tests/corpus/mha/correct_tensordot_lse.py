# attnprep: mha
# expect: pass
# style: np.tensordot projections, weights as exp(scores - logsumexp) with a -1e30 fill, tuple returned by keyword call
import numpy as np


def split_heads(x, n_heads):
    B, T, D = x.shape
    if D % n_heads:
        raise ValueError("n_heads must divide d_model")
    out = np.empty((B, n_heads, T, D // n_heads), dtype=x.dtype)
    for h in range(n_heads):
        out[:, h] = x[..., h * (D // n_heads):(h + 1) * (D // n_heads)]
    return out


def merge_heads(x):
    B, H, T, dh = x.shape
    out = np.empty((B, T, H * dh), dtype=x.dtype)
    for h in range(H):
        out[..., h * dh:(h + 1) * dh] = x[:, h]
    return out


def _attend(q, k, v, d_head):
    T = q.shape[-2]
    s = np.einsum("...id,...jd->...ij", q, k) * d_head ** -0.5
    s = np.where(np.arange(T)[None, :] <= np.arange(T)[:, None], s, -1e30)
    m = s.max(axis=-1, keepdims=True)
    lse = m + np.log(np.exp(s - m).sum(axis=-1, keepdims=True))
    w = np.exp(s - lse)
    return w @ v, w


def causal_mha(x, W_q, W_k, W_v, W_o, n_heads):
    d_model = x.shape[-1]
    if d_model % n_heads:
        raise ValueError("n_heads must divide d_model")
    q, k, v = (split_heads(np.tensordot(x, W, axes=([2], [0])), n_heads=n_heads) for W in (W_q, W_k, W_v))
    out, weights = _attend(q=q, k=k, v=v, d_head=d_model // n_heads)
    return np.tensordot(merge_heads(x=out), W_o, axes=1), weights
