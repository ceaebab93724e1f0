# attnprep: causal
# expect: pass
# style: a stand-alone 1-D softmax applied row by row with np.apply_along_axis on -inf-masked scores
import numpy as np


def _softmax(row):
    e = np.exp(row - np.max(row))
    return e / np.sum(e)


def causal_mask(T):
    return np.triu(np.full((T, T), True), 1)


def causal_attention(q, k, v):
    q, k, v = map(np.asarray, (q, k, v))
    scores = q.dot(k.T) / np.sqrt(k.shape[-1])
    scores[causal_mask(scores.shape[0])] = -np.inf
    weights = np.apply_along_axis(_softmax, 1, scores)
    return weights.dot(v), weights
