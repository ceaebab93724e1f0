# attnprep: causal
# expect: pass
# style: mask from comparing aranges, -1e9 through np.where, scale folded into a copy of q
import numpy as np


def causal_mask(T):
    idx = np.arange(T)
    return idx[None, :] > idx[:, None]


def causal_attention(q, k, v):
    T, d_k = q.shape
    q = q / np.sqrt(d_k)  # a new array: the caller's q is untouched
    scores = np.where(causal_mask(T), -1e9, q @ k.T)
    scores -= scores.max(axis=1, keepdims=True)  # in place on our own array
    np.exp(scores, out=scores)
    scores /= scores.sum(axis=1, keepdims=True)
    return scores @ v, scores
