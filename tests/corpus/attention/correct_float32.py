# attnprep: attention
# expect: pass
# style: float32 arithmetic with float32 results: judged at float32 precision (the same code
#        returning float64 would be wrong, as float64 results are held to float64)
import numpy as np


def attention(q, k, v, mask=None):
    q, k, v = (np.asarray(a, dtype=np.float32) for a in (q, k, v))
    scores = q @ np.swapaxes(k, -1, -2) / np.float32(np.sqrt(q.shape[-1]))
    if mask is not None:
        scores = np.where(mask, -np.inf, scores)
    w = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return w / w.sum(axis=-1, keepdims=True) @ v
