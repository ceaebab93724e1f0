# attnprep: mha
# expect: pass
# style: 2-D code per batch element and head (np.dot, k.T on 2-D), heads glued with np.hstack, np.stack over the batch
import math

import numpy as np


def split_heads(x, n_heads):
    x = np.asarray(x)
    d_head, rest = divmod(x.shape[2], n_heads)
    if rest:
        raise ValueError("n_heads must divide d_model")
    return np.array([[x[b][:, h * d_head:(h + 1) * d_head] for h in range(n_heads)] for b in range(x.shape[0])])


def merge_heads(x):
    return np.stack([np.hstack(list(heads)) for heads in x])


def _one_head(q, k, v):
    T, dh = q.shape
    scores = np.dot(q, k.T) / math.sqrt(dh)
    scores[np.triu_indices(T, 1)] = -np.inf
    w = np.exp(scores - scores.max(axis=1)[:, None])
    w /= w.sum(axis=1)[:, None]
    return np.dot(w, v), w


def causal_mha(x, W_q, W_k, W_v, W_o, n_heads):
    if x.shape[-1] % n_heads:
        raise ValueError(f"{x.shape[-1]} features cannot be split into {n_heads} heads")
    ys, ws = [], []
    for xb in x:
        q, k, v = (split_heads((xb @ W)[None], n_heads)[0] for W in (W_q, W_k, W_v))
        outs, weights = zip(*(_one_head(q[h], k[h], v[h]) for h in range(n_heads)))
        ys.append(merge_heads(np.array(outs)[None])[0] @ W_o)
        ws.append(np.array(weights))
    return np.array(ys), np.array(ws)
