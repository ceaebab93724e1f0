# attnprep: causal
# expect: pass
# style: log-softmax through a hand-written logsumexp, masked with -inf via boolean indexing on a copy
import numpy as np


def causal_mask(T):
    return np.triu(np.ones((T, T), dtype=bool), k=1)


def _logsumexp(x, axis):
    m = np.max(x, axis=axis, keepdims=True)
    return m + np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True))


def causal_attention(q, k, v):
    q, k, v = np.asarray(q, float), np.asarray(k, float), np.asarray(v, float)
    scores = (q @ k.T) * (q.shape[1] ** -0.5)
    scores[causal_mask(len(q))] = -np.inf
    weights = np.exp(scores - _logsumexp(scores, axis=-1))
    return np.matmul(weights, v), weights
