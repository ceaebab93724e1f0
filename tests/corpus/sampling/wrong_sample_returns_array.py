# attnprep: sampling
# expect: fail token-id
# mistake: sample returns rng.choice(..., size=1), a one-element array, instead of an int
# must-pass: stable distribution greedy reproducible
# diagnosis: sample-returns-array
import numpy as np


def _check(temperature, top_k, top_p):
    if temperature < 0:
        raise ValueError("temperature must be non-negative")
    if top_k is not None and top_k < 1:
        raise ValueError("top_k must be at least 1")
    if top_p is not None and not (0 < top_p <= 1):
        raise ValueError("top_p must be in (0, 1]")


def sampling_probs(logits, temperature=1.0, top_k=None, top_p=None):
    _check(temperature, top_k, top_p)
    logits = np.asarray(logits, dtype=np.float64)
    V = len(logits)
    if temperature == 0:
        probs = np.zeros(V)
        probs[np.argmax(logits)] = 1.0
        return probs
    z = logits / temperature
    z = z - z.max()
    probs = np.exp(z)
    probs = probs / probs.sum()
    if top_k is not None and top_k < V:
        order = np.argsort(probs)[::-1]
        probs[order[top_k:]] = 0.0
        probs = probs / probs.sum()
    if top_p is not None:
        order = np.argsort(probs)[::-1]
        cum = np.cumsum(probs[order])
        cutoff = int(np.searchsorted(cum, top_p)) + 1
        probs[order[cutoff:]] = 0.0
        probs = probs / probs.sum()
    return probs


def sample(logits, temperature=1.0, top_k=None, top_p=None, rng=None):
    if rng is None:
        rng = np.random.default_rng()
    probs = sampling_probs(logits, temperature, top_k, top_p)
    return rng.choice(len(probs), size=1, p=probs)
