# attnprep: sampling
# expect: fail greedy
# mistake: greedy takes the first entry of a descending order built by reversing an ascending stable argsort,
# must-pass: stable
#          which is the LAST of tied maxima, not np.argmax's first
# diagnosis: greedy-last-tie
import numpy as np


def sampling_probs(logits, temperature=1.0, top_k=None, top_p=None):
    if temperature < 0:
        raise ValueError("temperature must be >= 0")
    if top_k is not None and top_k < 1:
        raise ValueError("top_k must be >= 1")
    if top_p is not None and not 0 < top_p <= 1:
        raise ValueError("top_p must be in (0, 1]")
    logits = np.asarray(logits, dtype=np.float64)
    order = np.argsort(logits, kind="stable")[::-1]  # descending
    if temperature == 0:
        out = np.zeros(logits.size)
        out[order[0]] = 1.0
        return out
    z = logits / temperature
    p = np.exp(z - z.max())
    p /= p.sum()
    if top_k is not None:
        p[order[top_k:]] = 0.0
        p /= p.sum()
    if top_p is not None:
        cum = np.cumsum(p[order])
        n = min(int(np.searchsorted(cum, top_p)) + 1, p.size)
        p[order[n:]] = 0.0
        p /= p.sum()
    return p


def sample(logits, temperature=1.0, top_k=None, top_p=None, rng=None):
    rng = np.random.default_rng() if rng is None else rng
    p = sampling_probs(logits, temperature, top_k, top_p)
    return int(rng.choice(p.size, p=p))
