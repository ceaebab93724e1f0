# attnprep: attention
# expect: pass
# style: numpy.ma: the mask broadcast to the scores' shape and masked out, softmax over the unmasked keys
import numpy as np


def attention(q, k, v, mask=None):
    q, k, v = (np.asarray(a, dtype=float) for a in (q, k, v))
    scores = np.matmul(q, np.swapaxes(k, -1, -2)) / np.sqrt(q.shape[-1])
    blocked = np.ma.nomask if mask is None else np.broadcast_to(mask, scores.shape)
    scores = np.ma.masked_array(scores, mask=blocked)
    e = np.ma.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = np.ma.filled(e / e.sum(axis=-1, keepdims=True), 0.0)
    return np.matmul(weights, v)
