# attnprep: sampling
# expect: fail reproducible
# mistake: without an rng, draws with np.random.choice, NumPy's global state, instead of a fresh np.random.default_rng()
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
        p[order[before >= top_p]] = 0.0
        p /= p.sum()
    return p


def sample(logits, temperature=1.0, top_k=None, top_p=None, rng=None):
    p = sampling_probs(logits, temperature, top_k, top_p)
    if rng is None:
        return int(np.random.choice(len(p), p=p))
    return int(rng.choice(len(p), p=p))
