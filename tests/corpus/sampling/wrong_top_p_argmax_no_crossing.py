# attnprep: sampling
# expect: fail top-p matches-reference
# must-pass: temperature greedy top-k distribution stable bad-input sum-to-one
# diagnosis: top-p-argmax-cut
# mistake: finds the cut with np.argmax(cum >= top_p): when rounding leaves the running total just below top_p = 1.0, nothing reaches it, argmax returns 0 and only the top token is kept
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
        cut = int(np.argmax(cum >= top_p))
        p[order[cut + 1:]] = 0.0
        p /= p.sum()
    return p


def sample(logits, temperature=1.0, top_k=None, top_p=None, rng=None):
    p = sampling_probs(logits, temperature, top_k, top_p)
    rng = np.random.default_rng() if rng is None else rng
    return int(rng.choice(len(p), p=p))
