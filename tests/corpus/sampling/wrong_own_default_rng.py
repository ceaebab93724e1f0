# attnprep: sampling
# expect: fail reproducible
# mistake: ignores the rng passed in and draws from a generator of its own, seeded once with 0
# must-pass: stable
# diagnosis: sample-ignores-rng
import numpy as np

_RNG = np.random.default_rng(0)


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
    probs = sampling_probs(logits, temperature, top_k, top_p)
    return int(_RNG.choice(len(probs), p=probs))
