# attnprep: sampling
# expect: pass
# style: plain Python (math.exp, sorted with a key), returns a list; sample via rng.multinomial, keyword-only extras
import math

import numpy as np


def sampling_probs(logits, temperature=1.0, top_k=None, top_p=None, **unused):
    if temperature < 0 or (top_k is not None and top_k < 1) or (top_p is not None and not 0 < top_p <= 1):
        raise ValueError("bad sampling parameters")
    xs = [float(v) for v in logits]
    V = len(xs)
    if temperature == 0:
        best = max(range(V), key=lambda i: (xs[i], -i))
        return [1.0 if i == best else 0.0 for i in range(V)]
    m = max(xs)
    e = [math.exp((v - m) / temperature) for v in xs]
    s = math.fsum(e)
    p = [v / s for v in e]
    order = sorted(range(V), key=lambda i: -p[i])
    if top_k is not None:
        kept = set(order[:top_k])
        p = [p[i] if i in kept else 0.0 for i in range(V)]
        s = math.fsum(p)
        p = [v / s for v in p]
    if top_p is not None:
        total, kept = 0.0, set()
        for i in order:
            if p[i] == 0.0:
                break
            kept.add(i)
            total += p[i]
            if total >= top_p:
                break
        p = [p[i] if i in kept else 0.0 for i in range(V)]
        s = math.fsum(p)
        p = [v / s for v in p]
    return p


def sample(logits, temperature=1.0, top_k=None, top_p=None, rng=None, **unused):
    p = np.asarray(sampling_probs(logits, temperature, top_k, top_p))
    if rng is None:
        rng = np.random.default_rng()
    return int(np.argmax(rng.multinomial(1, p / p.sum())))
