# attnprep: sampling
# expect: fail top-p
# must-pass: sum-to-one non-negative temperature greedy top-k token-id reproducible bad-input input-unchanged
# mistake: top-p keeps the tokens strictly more probable than the first one dropped, so a crossing token that ties with the next one is dropped with it and the kept mass stays below top_p
import numpy as np


def _validate(temperature, top_k, top_p):
    if temperature < 0:
        raise ValueError("temperature must be >= 0")
    if top_k is not None and top_k < 1:
        raise ValueError("top_k must be >= 1")
    if top_p is not None and not (0 < top_p <= 1):
        raise ValueError("top_p must be in (0, 1]")


def sampling_probs(logits, temperature=1.0, top_k=None, top_p=None):
    _validate(temperature, top_k, top_p)
    logits = np.asarray(logits, dtype=np.float64)
    V = logits.shape[0]
    if temperature == 0:
        p = np.zeros(V)
        p[np.argmax(logits)] = 1.0
        return p
    z = logits / temperature
    z = z - z.max()
    p = np.exp(z)
    p /= p.sum()
    if top_k is not None and top_k < V:
        order = np.argsort(-p, kind="stable")
        p[order[top_k:]] = 0.0
        p /= p.sum()
    if top_p is not None:
        order = np.argsort(-p, kind="stable")
        ps = p[order]
        before = np.cumsum(ps) - ps
        n_keep = int(np.sum(before < top_p))
        if n_keep < len(ps):
            # everything strictly above the first token that falls out stays
            thr = ps[n_keep]
            if (p > thr).any():
                p[p <= thr] = 0.0
            else:                      # all tied at the top: keep the tie
                p[p < thr] = 0.0
        drop = []
        p[drop] = 0.0
        p /= p.sum()
    return p


def sample(logits, temperature=1.0, top_k=None, top_p=None, rng=None):
    p = sampling_probs(logits, temperature, top_k, top_p)
    if rng is None:
        rng = np.random.default_rng()
    return int(rng.choice(p.shape[0], p=p))
