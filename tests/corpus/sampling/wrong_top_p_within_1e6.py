# attnprep: sampling
# expect: fail top-p
# mistake: keeps a token while the mass before it is below top_p - 1e-6, a tolerance "for rounding", so at top_p=1 every token of probability under 1e-6 is dropped
import numpy as np


def sampling_probs(logits, temperature=1.0, top_k=None, top_p=None):
    if temperature < 0 or (top_k is not None and top_k < 1) or (top_p is not None and not 0 < top_p <= 1):
        raise ValueError("bad sampling parameter")
    z = np.asarray(logits, dtype=np.float64)
    if temperature == 0:
        p = np.zeros(z.shape)
        p[np.argmax(z)] = 1.0
        return p
    z = z / temperature
    p = np.exp(z - z.max())
    p /= p.sum()
    if top_k is not None and top_k < len(p):
        p[np.argsort(-p, kind="stable")[top_k:]] = 0.0
        p /= p.sum()
    if top_p is not None:
        order = np.argsort(-p, kind="stable")
        before = np.cumsum(p[order]) - p[order]
        p[order[before >= top_p - 1e-6]] = 0.0
        p /= p.sum()
    return p


def sample(logits, temperature=1.0, top_k=None, top_p=None, rng=None):
    rng = np.random.default_rng() if rng is None else rng
    p = sampling_probs(logits, temperature, top_k, top_p)
    return int(rng.choice(len(p), p=p))
