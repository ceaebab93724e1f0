# attnprep: sampling
# expect: pass
# style: sort once, filter with slices in sorted space, scatter back through the permutation; returns a list;
#        rng.multinomial for the draw; finfo(float).min as the mask value
import numpy as np

NEG = np.finfo(float).min


def sampling_probs(logits, temperature=1.0, top_k=None, top_p=None):
    if temperature < 0 or (top_k is not None and top_k < 1) or (top_p is not None and not 0 < top_p <= 1):
        raise ValueError(f"bad arguments: temperature={temperature}, top_k={top_k}, top_p={top_p}")
    logits = np.asarray(logits, dtype=np.float64)
    V = len(logits)
    order = np.argsort(-logits, kind="stable")  # most probable first (temperature > 0 keeps the order)
    if temperature == 0:
        out = [0.0] * V
        out[int(order[0])] = 1.0
        return out
    s = logits[order] * (1.0 / temperature)
    keep = V if top_k is None else min(top_k, V)
    s[keep:] = NEG
    e = np.exp(s - s[0])
    e[keep:] = 0.0
    p = e / e.sum()
    if top_p is not None:
        n = int(np.argmax(np.cumsum(p) >= top_p)) + 1 if np.cumsum(p)[-1] >= top_p else V
        p[n:] = 0.0
        p /= p.sum()
    out = np.empty(V)
    out[order] = p
    return out.tolist()


def sample(logits, temperature=1.0, top_k=None, top_p=None, rng=None):
    rng = rng if rng is not None else np.random.default_rng()
    p = np.asarray(sampling_probs(logits, temperature, top_k, top_p))
    return int(np.argmax(rng.multinomial(1, p)))
