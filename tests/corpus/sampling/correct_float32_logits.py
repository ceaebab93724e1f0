# attnprep: sampling
# expect: pass
# style: float32 logits and probabilities end to end: judged at float32 precision, where logits near 1e4 at
#        temperature 0.01 keep only the digits float32 gives them
import numpy as np


def sampling_probs(logits, temperature=1.0, top_k=None, top_p=None):
    if temperature < 0:
        raise ValueError("temperature must be >= 0")
    if top_k is not None and top_k < 1:
        raise ValueError("top_k must be >= 1")
    if top_p is not None and not 0 < top_p <= 1:
        raise ValueError("top_p must be in (0, 1]")
    logits = np.asarray(logits, dtype=np.float32)
    if temperature == 0:
        out = np.zeros(logits.size)
        out[np.argmax(logits)] = 1.0
        return out
    z = logits / np.float32(temperature)
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
    rng = np.random.default_rng() if rng is None else rng
    p = sampling_probs(logits, temperature, top_k, top_p).astype(np.float64)
    return int(rng.choice(p.size, p=p / p.sum()))
