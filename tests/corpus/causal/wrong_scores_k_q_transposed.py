# attnprep: causal
# expect: fail matches-reference
# diagnosis: scores-k-q-transposed
# must-pass: mask shape sum-to-one upper-triangle-zero prefix stable input-unchanged
# mistake: computes the scores as k @ q.T instead of q @ k.T, so entry [i, j] pairs key i with query j
import numpy as np
def causal_mask(T):
    return np.triu(np.ones((T, T), dtype=bool), k=1)
def causal_attention(q, k, v):
    s = k @ q.T / np.sqrt(q.shape[1])
    s = np.where(causal_mask(q.shape[0]), -np.inf, s)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    w = e / e.sum(axis=-1, keepdims=True)
    return w @ v, w
