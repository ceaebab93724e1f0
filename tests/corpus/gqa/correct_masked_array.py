# attnprep: gqa
# expect: pass
# style: np.ma masked arrays for the causal softmax, np.moveaxis, np.repeat on axis -3, einsum with ellipses
import numpy as np


def _masked_softmax(scores, blocked):
    s = np.ma.masked_array(scores, mask=np.broadcast_to(blocked, scores.shape))
    s = s - s.max(axis=-1, keepdims=True)
    e = np.ma.exp(s)
    return (e / e.sum(axis=-1, keepdims=True)).filled(0.0)


def gqa_attention(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads):
    if n_heads % n_kv_heads != 0:
        raise ValueError(f"{n_heads} % {n_kv_heads} != 0")
    x = np.asarray(x, dtype=float)
    B, T, _ = x.shape
    hd = W_q.shape[1] // n_heads
    q = np.moveaxis((x @ W_q).reshape(B, T, n_heads, hd), 2, 1)
    k = np.moveaxis((x @ W_k).reshape(B, T, n_kv_heads, hd), 2, 1)
    v = np.moveaxis((x @ W_v).reshape(B, T, n_kv_heads, hd), 2, 1)
    k = np.repeat(k, n_heads // n_kv_heads, axis=-3)
    v = np.repeat(v, n_heads // n_kv_heads, axis=-3)
    scores = np.einsum("...id,...jd->...ij", q, k) / hd ** 0.5
    weights = _masked_softmax(scores, np.triu(np.ones((T, T), bool), 1))
    out = np.einsum("...ij,...jd->...id", weights, v)
    return np.moveaxis(out, 1, 2).reshape(B, T, -1) @ W_o
