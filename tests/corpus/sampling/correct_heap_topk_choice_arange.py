# attnprep: sampling
# expect: pass
# style: heapq.nlargest for top-k, an explicit loop for top-p, rng.choice over an arange returning a NumPy int
import heapq

import numpy as np


def sampling_probs(logits, temperature=1.0, top_k=None, top_p=None):
    if temperature < 0:
        raise ValueError("temperature")
    if top_k is not None and top_k < 1:
        raise ValueError("top_k")
    if top_p is not None and (top_p <= 0 or top_p > 1):
        raise ValueError("top_p")
    x = np.array(logits, dtype=float)
    if temperature == 0:
        out = np.zeros_like(x)
        out[x.argmax()] = 1
        return out
    x = x / temperature
    x -= x.max()
    p = np.exp(x)
    p /= p.sum()
    if top_k is not None:
        keep = heapq.nlargest(top_k, range(len(p)), key=lambda i: p[i])
        mask = np.zeros(len(p), dtype=bool)
        mask[keep] = True
        p = np.where(mask, p, 0.0)
        p = p / p.sum()
    if top_p is not None:
        idx = np.argsort(p)[::-1]
        total, n = 0.0, 0
        while n < len(p) and total < top_p:
            total += p[idx[n]]
            n += 1
        p[idx[n:]] = 0.0
        p = p / p.sum()
    return p


def sample(logits, temperature=1.0, top_k=None, top_p=None, rng=None):
    rng = rng if rng is not None else np.random.default_rng()
    p = sampling_probs(logits, temperature=temperature, top_k=top_k, top_p=top_p)
    return rng.choice(np.arange(p.size), p=p)
