# attnprep: sampling
# expect: pass
# style: plain Python lists, loops and math.exp; inverse CDF by walking the running total
import math

import numpy as np


def sampling_probs(logits, temperature=1.0, top_k=None, top_p=None):
    if temperature < 0:
        raise ValueError("temperature must be >= 0")
    if top_k is not None and top_k < 1:
        raise ValueError("top_k must be >= 1")
    if top_p is not None and not (0.0 < top_p <= 1.0):
        raise ValueError("top_p must be in (0, 1]")
    values = [float(v) for v in logits]
    n = len(values)
    best = 0
    for i in range(1, n):
        if values[i] > values[best]:
            best = i
    if temperature == 0:
        return np.array([1.0 if i == best else 0.0 for i in range(n)])
    top = values[best]
    probs = [math.exp((v - top) / temperature) for v in values]
    total = sum(probs)
    probs = [p / total for p in probs]
    ranked = sorted(range(n), key=lambda i: -probs[i])
    if top_k is not None:
        for i in ranked[top_k:]:
            probs[i] = 0.0
        total = sum(probs)
        probs = [p / total for p in probs]
    if top_p is not None:
        running = 0.0
        keep = set()
        for i in ranked:
            keep.add(i)
            running += probs[i]
            if running >= top_p:
                break
        probs = [p if i in keep else 0.0 for i, p in enumerate(probs)]
        total = sum(probs)
        probs = [p / total for p in probs]
    return np.array(probs)


def sample(logits, temperature=1.0, top_k=None, top_p=None, rng=None):
    if rng is None:
        rng = np.random.default_rng()
    probs = sampling_probs(logits, temperature, top_k, top_p)
    u = rng.random()
    running = 0.0
    last = 0
    for i, p in enumerate(probs):
        if p > 0:
            last = i
            running += p
            if u < running:
                return i
    return last
