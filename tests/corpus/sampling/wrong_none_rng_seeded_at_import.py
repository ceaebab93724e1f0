# attnprep: sampling
# expect: fail reproducible
# must-pass: stable token-id distribution
# mistake: without an rng, draws from one np.random.default_rng(1234) made when the file is imported ("reproducible
#          by default"): every run of the program replays the same tokens
import numpy as np

_DEFAULT = np.random.default_rng(1234)


def sampling_probs(logits, temperature=1.0, top_k=None, top_p=None):
    logits = np.asarray(logits, dtype=np.float64)
    if temperature < 0 or (top_k is not None and top_k < 1) or (top_p is not None and not 0 < top_p <= 1):
        raise ValueError("bad settings")
    V = logits.shape[0]
    if temperature == 0:
        out = np.zeros(V)
        out[int(np.argmax(logits))] = 1.0
        return out
    z = logits / temperature
    p = np.exp(z - z.max())
    p /= p.sum()
    if top_k is not None and top_k < V:
        order = np.argsort(-p, kind="stable")
        p[order[top_k:]] = 0.0
        p /= p.sum()
    if top_p is not None:
        order = np.argsort(-p, kind="stable")
        c = np.cumsum(p[order])
        keep = int(np.searchsorted(c, top_p)) + 1
        p[order[keep:]] = 0.0
        p /= p.sum()
    return p


def sample(logits, temperature=1.0, top_k=None, top_p=None, rng=None):
    if rng is None:
        rng = _DEFAULT
    p = sampling_probs(logits, temperature, top_k, top_p)
    return int(rng.choice(len(p), p=p))
