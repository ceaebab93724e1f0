# attnprep: attention
# expect: fail matches-reference
# mistake: works through the queries in chunks of 128 "to bound the score matrix", looping over T_q // 128 whole chunks only, so for long inputs the rows of a partial last chunk stay zero
import numpy as np

CHUNK = 128


def _rows(q, k, v, mask):
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = np.where(mask, -np.inf, scores)
    w = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return (w / w.sum(axis=-1, keepdims=True)) @ v


def attention(q, k, v, mask=None):
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    m = None if mask is None else np.broadcast_to(np.asarray(mask, dtype=bool), q.shape[:-1] + (k.shape[-2],))
    T_q = q.shape[-2]
    if T_q <= CHUNK:
        return _rows(q, k, v, m)
    out = np.zeros(q.shape[:-1] + (v.shape[-1],))
    for c in range(T_q // CHUNK):
        s = slice(c * CHUNK, (c + 1) * CHUNK)
        out[..., s, :] = _rows(q[..., s, :], k, v, None if m is None else m[..., s, :])
    return out
