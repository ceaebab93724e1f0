# attnprep: sampling
# expect: fail top-p matches-reference
# must-pass: sum-to-one non-negative temperature greedy top-k distribution stable bad-input input-unchanged
# diagnosis: top-p-before-temperature
# mistake: applies top_k and top_p to softmax(logits) at temperature 1 and only then applies the temperature to the tokens they keep, so the nucleus is measured on the wrong distribution
import numpy as np


def _softmax(z):
    e = np.exp(z - z.max())
    return e / e.sum()


def sampling_probs(logits, temperature=1.0, top_k=None, top_p=None):
    if temperature < 0 or (top_k is not None and top_k < 1) or (top_p is not None and not 0 < top_p <= 1):
        raise ValueError("bad sampling parameters")
    logits = np.asarray(logits, dtype=np.float64)
    V = len(logits)
    if temperature == 0:
        out = np.zeros(V)
        out[np.argmax(logits)] = 1.0
        return out
    keep = np.ones(V, dtype=bool)
    order = np.argsort(-logits, kind="stable")
    if top_k is not None and top_k < V:
        keep[order[top_k:]] = False
    if top_p is not None:
        p = np.where(keep, _softmax(logits), 0.0)
        p /= p.sum()
        cum = np.cumsum(p[order])
        n = min(int(np.searchsorted(cum, top_p)) + 1, V)
        keep[order[n:]] = False
    z = np.where(keep, logits / temperature, -np.inf)
    return _softmax(z)


def sample(logits, temperature=1.0, top_k=None, top_p=None, rng=None):
    p = sampling_probs(logits, temperature, top_k, top_p)
    rng = np.random.default_rng() if rng is None else rng
    return int(rng.choice(len(p), p=p))
