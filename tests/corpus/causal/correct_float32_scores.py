# attnprep: causal
# expect: pass
# style: float32 arithmetic with float32 results: judged at float32 precision (the same code
#        returning float64 would be wrong, as float64 results are held to float64)
import numpy as np


def causal_mask(T):
    return np.triu(np.ones((T, T), dtype=bool), k=1)


def causal_attention(q, k, v):
    q, k, v = (np.asarray(a, dtype=np.float32) for a in (q, k, v))
    scores = q @ k.T / np.float32(np.sqrt(q.shape[1]))
    scores = np.where(causal_mask(q.shape[0]), -np.inf, scores)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights
