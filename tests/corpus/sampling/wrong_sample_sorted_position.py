# attnprep: sampling
# expect: fail distribution
# must-pass: sum-to-one non-negative temperature top-k top-p matches-reference stable bad-input input-unchanged
# diagnosis: sample-sorted-position
# mistake: sample draws a position in the probabilities sorted high to low and returns that position, not the token id it belongs to
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
    order = np.argsort(-p, kind="stable")
    if top_k is not None and top_k < len(p):
        p[order[top_k:]] = 0.0
        p /= p.sum()
    if top_p is not None:
        cum = np.cumsum(p[order])
        n = min(int(np.searchsorted(cum, top_p)) + 1, len(p))
        p[order[n:]] = 0.0
        p /= p.sum()
    return p


def sample(logits, temperature=1.0, top_k=None, top_p=None, rng=None):
    p = sampling_probs(logits, temperature, top_k, top_p)
    rng = np.random.default_rng() if rng is None else rng
    sorted_p = np.sort(p)[::-1]
    return int(rng.choice(len(p), p=sorted_p))
