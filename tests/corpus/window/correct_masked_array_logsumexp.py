# attnprep: window
# expect: pass
# style: np.ma masked scores, softmax as exp(s - logsumexp(s)) with a hand-written logsumexp, filled with 0.0
import numpy as np


def sliding_window_mask(T, window):
    if not window >= 1:
        raise ValueError(f"bad window {window}")
    upper = np.triu(np.ones((T, T), dtype=bool), k=1)
    far = np.tril(np.ones((T, T), dtype=bool), k=-int(window))
    return np.logical_or(upper, far)


def window_attention(q, k, v, window):
    mask = sliding_window_mask(len(q), window)
    scores = np.ma.masked_array(np.matmul(q, k.T) / np.sqrt(k.shape[1]), mask=mask)
    m = scores.max(axis=1, keepdims=True)
    lse = m + np.log(np.ma.exp(scores - m).sum(axis=1, keepdims=True))
    weights = np.ma.exp(scores - lse).filled(0.0)
    return np.dot(weights, v), weights
