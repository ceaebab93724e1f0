# attnprep: sampling
# expect: pass
# style: log-space softmax, top-k by np.argpartition, top-p by an exclusive cumulative sum, inverse-CDF sampling
import numpy as np


def _validate(temperature, top_k, top_p):
    if temperature < 0:
        raise ValueError("temperature must be >= 0")
    if top_k is not None and top_k < 1:
        raise ValueError("top_k must be >= 1")
    if top_p is not None and not (0 < top_p <= 1):
        raise ValueError("top_p must be in (0, 1]")


def sampling_probs(logits, temperature=1.0, top_k=None, top_p=None):
    _validate(temperature, top_k, top_p)
    logits = np.asarray(logits, dtype=np.float64)
    V = logits.size
    if temperature == 0:
        return np.eye(V)[np.argmax(logits)]
    z = logits / temperature
    logp = z - (z.max() + np.log(np.sum(np.exp(z - z.max()))))
    keep = np.ones(V, dtype=bool)
    if top_k is not None and top_k < V:
        keep[:] = False
        keep[np.argpartition(-logp, top_k - 1)[:top_k]] = True
    p = np.where(keep, np.exp(logp), 0.0)
    p /= p.sum()
    if top_p is not None:
        order = np.argsort(-p, kind="stable")
        before = np.cumsum(p[order]) - p[order]      # mass of the strictly more probable tokens
        drop = order[before >= top_p]
        p[drop] = 0.0
        p /= p.sum()
    return p


def sample(logits, temperature=1.0, top_k=None, top_p=None, rng=None):
    p = sampling_probs(logits, temperature, top_k, top_p)
    rng = np.random.default_rng() if rng is None else rng
    cdf = np.cumsum(p)
    i = int(np.searchsorted(cdf, rng.random() * cdf[-1], side="right"))
    i = min(i, len(p) - 1)
    while p[i] == 0:  # u landed exactly on a flat step: step back to a kept token
        i -= 1
    return i
