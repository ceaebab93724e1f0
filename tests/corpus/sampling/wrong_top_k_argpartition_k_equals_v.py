# attnprep: sampling
# expect: fail top-k
# must-pass: temperature greedy top-p stable distribution
# mistake: top-k with np.argpartition(-p, top_k) crashes when top_k >= V (kth out of bounds) instead of keeping every token
# diagnosis: top-k-at-vocabulary-size
import numpy as np


def sampling_probs(logits, temperature=1.0, top_k=None, top_p=None):
    if temperature < 0 or (top_k is not None and top_k < 1) or (top_p is not None and not 0 < top_p <= 1):
        raise ValueError("bad sampling parameters")
    logits = np.asarray(logits, dtype=np.float64)
    if temperature == 0:
        out = np.zeros(len(logits))
        out[np.argmax(logits)] = 1.0
        return out
    z = logits / temperature
    p = np.exp(z - z.max())
    p /= p.sum()
    if top_k is not None:
        keep = np.argpartition(-p, top_k)[:top_k]
        mask = np.zeros(len(p), dtype=bool)
        mask[keep] = True
        p = np.where(mask, p, 0.0)
        p /= p.sum()
    if top_p is not None:
        order = np.argsort(-p, kind="stable")
        cum = np.cumsum(p[order])
        n = min(int(np.searchsorted(cum, top_p)) + 1, len(p))
        p[order[n:]] = 0.0
        p /= p.sum()
    return p


def sample(logits, temperature=1.0, top_k=None, top_p=None, rng=None):
    p = sampling_probs(logits, temperature, top_k, top_p)
    rng = np.random.default_rng() if rng is None else rng
    return int(rng.choice(len(p), p=p))
