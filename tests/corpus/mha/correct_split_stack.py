# attnprep: mha
# expect: pass
# style: np.split / np.stack to split heads, masked_fill with -1e9 via np.where, logsumexp softmax
import numpy as np


def split_heads(x, n_heads):
    if x.shape[-1] % n_heads != 0:
        raise ValueError("bad n_heads")
    return np.stack(np.split(x, n_heads, axis=-1), axis=1)


def merge_heads(x):
    return np.concatenate(list(np.moveaxis(x, 1, 0)), axis=-1)


def causal_mha(x, W_q, W_k, W_v, W_o, n_heads):
    T, d_model = x.shape[1], x.shape[2]
    if d_model % n_heads != 0:
        raise ValueError("d_model % n_heads != 0")
    q, k, v = (split_heads(x @ W, n_heads) for W in (W_q, W_k, W_v))
    d_head = q.shape[-1]
    scores = np.matmul(q, np.swapaxes(k, 2, 3)) * (1.0 / np.sqrt(d_head))
    blocked = np.arange(T)[None, :] > np.arange(T)[:, None]
    scores = np.where(blocked, -1e9, scores)
    m = scores.max(axis=-1, keepdims=True)
    lse = m + np.log(np.exp(scores - m).sum(axis=-1, keepdims=True))
    weights = np.exp(scores - lse)
    return merge_heads(weights @ v) @ W_o, weights
