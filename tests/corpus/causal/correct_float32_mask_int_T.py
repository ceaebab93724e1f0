# attnprep: causal
# expect: pass
# style: the mask from np.tri of a NumPy int T, built as float32 then cast to bool; scores through np.einsum('td,sd->ts'); keyword call; scale folded into k
import numpy as np


def causal_mask(T):
    T = np.int64(T)
    return (1 - np.tri(T, T, dtype=np.float32)).astype(bool)


def causal_attention(q, k, v):
    q, k, v = map(np.asarray, (q, k, v))
    ks = k / np.sqrt(np.float64(k.shape[1]))
    s = np.einsum("td,sd->ts", q, ks)
    s = np.where(causal_mask(T=q.shape[0]), -np.inf, s)
    m = np.nanmax(s, axis=-1, keepdims=True)
    e = np.exp(s - m)
    w = e / e.sum(-1, keepdims=True)
    return tuple((np.matmul(w, v), w))
