# attnprep: attention
# expect: pass
# style: np.putmask with -inf on a private score array, exp(scores - logsumexp), mask passed through np.logical_not
import numpy as np


def attention(q, k, v, mask=None):
    scores = np.einsum("...qd,...kd->...qk", q, k) / np.sqrt(k.shape[-1])
    if mask is not None:
        keep = np.logical_not(mask)
        np.putmask(scores, ~np.broadcast_to(keep, scores.shape), -np.inf)
    top = np.max(scores, axis=-1, keepdims=True)
    lse = top + np.log(np.sum(np.exp(scores - top), axis=-1, keepdims=True))
    return np.einsum("...qk,...kd->...qd", np.exp(scores - lse), v)
