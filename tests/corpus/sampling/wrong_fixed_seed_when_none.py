# attnprep: sampling
# expect: fail reproducible
# mistake: without an rng, builds np.random.default_rng(42) on every call, so every draw made without an rng is the same
# must-pass: stable
# diagnosis: sample-fixed-seed-when-none
import numpy as np


def sampling_probs(logits, temperature=1.0, top_k=None, top_p=None):
    if temperature < 0:
        raise ValueError("temperature must be >= 0")
    if top_k is not None and top_k < 1:
        raise ValueError("top_k must be >= 1")
    if top_p is not None and not 0 < top_p <= 1:
        raise ValueError("top_p must be in (0, 1]")
    logits = np.asarray(logits, dtype=np.float64)
    if temperature == 0:
        out = np.zeros(logits.size)
        out[np.argmax(logits)] = 1.0
        return out
    z = logits / temperature
    p = np.exp(z - z.max())
    p /= p.sum()
    order = np.argsort(-p, kind="stable")
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
    if rng is None:
        rng = np.random.default_rng(42)  # "reproducible by default"
    p = sampling_probs(logits, temperature, top_k, top_p)
    return int(rng.choice(p.size, p=p))
