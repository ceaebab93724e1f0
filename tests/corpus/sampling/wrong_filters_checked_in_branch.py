# attnprep: sampling
# expect: fail bad-input
# must-pass: temperature greedy top-k top-p matches-reference stable input-unchanged
# mistake: validates each filter's argument inside that filter's branch, which comes after the greedy return: at
#          temperature 0 a bad top_k or top_p is never looked at
import numpy as np


def _softmax(z):
    e = np.exp(z - np.max(z))
    return e / e.sum()


def sampling_probs(logits, temperature=1.0, top_k=None, top_p=None):
    if temperature < 0:
        raise ValueError(f"temperature must be >= 0, got {temperature}")
    x = np.array(logits, dtype=np.float64)
    if temperature == 0:
        out = np.zeros(len(x))
        out[int(np.argmax(x))] = 1.0
        return out
    p = _softmax(x / temperature)
    ranked = np.argsort(-p, kind="stable")
    if top_k is not None:
        if top_k < 1:
            raise ValueError(f"top_k must be >= 1, got {top_k}")
        p[ranked[top_k:]] = 0.0
        p = p / p.sum()
    if top_p is not None:
        if not 0 < top_p <= 1:
            raise ValueError(f"top_p must be in (0, 1], got {top_p}")
        cum = np.cumsum(p[ranked])
        n = min(int(np.searchsorted(cum, top_p, side="left")) + 1, len(p))
        p[ranked[n:]] = 0.0
        p = p / p.sum()
    return p


def sample(logits, temperature=1.0, top_k=None, top_p=None, rng=None):
    if rng is None:
        rng = np.random.default_rng()
    return int(rng.choice(len(logits), p=sampling_probs(logits, temperature, top_k, top_p)))
