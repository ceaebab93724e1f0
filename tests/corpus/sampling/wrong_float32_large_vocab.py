# attnprep: sampling
# expect: fail matches-reference
# must-pass: sum-to-one non-negative temperature greedy top-k top-p token-id reproducible bad-input input-unchanged
# diagnosis: float32-logits
# mistake: casts big vocabularies (above 32k tokens) to float32 "like the model's logits", then back: near 3,000 the
#          float32 rounding of each logit moves its probability by about 1e-4
import numpy as np


def sampling_probs(logits, temperature=1.0, top_k=None, top_p=None):
    if temperature < 0:
        raise ValueError("temperature must be >= 0")
    if top_k is not None and top_k < 1:
        raise ValueError("top_k must be >= 1")
    if top_p is not None and not 0 < top_p <= 1:
        raise ValueError("top_p must be in (0, 1]")
    logits = np.asarray(logits, dtype=np.float64)
    if logits.size > 32_768:
        logits = logits.astype(np.float32).astype(np.float64)
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
        remove[1:] = cum[:-1] >= top_p  # the total before the token already reaches top_p
        p[order[remove]] = 0.0
        p /= p.sum()
    return p


def sample(logits, temperature=1.0, top_k=None, top_p=None, rng=None):
    rng = np.random.default_rng() if rng is None else rng
    p = sampling_probs(logits, temperature, top_k, top_p)
    return int(rng.choice(p.size, p=p))
