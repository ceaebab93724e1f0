# attnprep: causal
# expect: pass
# style: numpy.ma: the future is masked out of the scores, softmax over the unmasked keys, filled with 0.0
import numpy as np


def causal_mask(T):
    i, j = np.indices((T, T))
    return j > i


def causal_attention(q, k, v):
    q, k, v = np.asarray(q, float), np.asarray(k, float), np.asarray(v, float)
    scores = np.ma.masked_array(np.dot(q, k.T) / np.sqrt(k.shape[1]), mask=causal_mask(len(q)))
    e = np.ma.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = np.ma.filled(e / e.sum(axis=-1, keepdims=True), 0.0)
    return np.dot(weights, v), weights
