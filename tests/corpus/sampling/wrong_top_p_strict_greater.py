# attnprep: sampling
# expect: fail top-p
# must-pass: sum-to-one non-negative temperature greedy top-k token-id reproducible stable bad-input input-unchanged
# diagnosis: top-p-strict-greater
# mistake: the Hugging Face-style shifted mask with `>` where `>=` belongs: a token is dropped only when the total
#          before it EXCEEDS top_p, so when a running total lands exactly on top_p the next token is kept too
import numpy as np


def sampling_probs(logits, temperature=1.0, top_k=None, top_p=None):
    if temperature < 0:
        raise ValueError("temperature must be >= 0")
    if top_k is not None and top_k < 1:
        raise ValueError("top_k must be >= 1")
    if top_p is not None and not 0 < top_p <= 1:
        raise ValueError("top_p must be in (0, 1]")
    logits = np.asarray(logits, dtype=np.float64)
    if temperature == 0:
        out = np.zeros(logits.size)
        out[np.argmax(logits)] = 1.0
        return out
    z = logits / temperature
    p = np.exp(z - z.max())
    p /= p.sum()
    order = np.argsort(-p, kind="stable")
    if top_k is not None and top_k < p.size:
        p[order[top_k:]] = 0.0
        p /= p.sum()
    if top_p is not None:
        cum = np.cumsum(p[order])
        remove = np.zeros(p.size, dtype=bool)
        remove[1:] = cum[:-1] > top_p  # should be >=: the total before the token already reaches top_p
        p[order[remove]] = 0.0
        p /= p.sum()
    return p


def sample(logits, temperature=1.0, top_k=None, top_p=None, rng=None):
    rng = np.random.default_rng() if rng is None else rng
    p = sampling_probs(logits, temperature, top_k, top_p)
    return int(rng.choice(p.size, p=p))
