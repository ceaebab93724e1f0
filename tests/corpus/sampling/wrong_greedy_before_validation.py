# attnprep: sampling
# expect: fail bad-input
# must-pass: temperature greedy top-k top-p matches-reference stable input-unchanged
# mistake: returns the greedy one-hot at temperature 0 before validating top_k and top_p, so temperature=0 with
#          top_k=0 or top_p=1.5 is accepted; the ValueError is unconditional
import numpy as np


def sampling_probs(logits, temperature=1.0, top_k=None, top_p=None):
    logits = np.asarray(logits, dtype=np.float64)
    if temperature == 0:
        # greedy decoding ignores the filters anyway
        probs = np.zeros_like(logits)
        probs[np.argmax(logits)] = 1.0
        return probs
    if temperature < 0:
        raise ValueError("temperature must be >= 0")
    if top_k is not None and top_k < 1:
        raise ValueError("top_k must be >= 1")
    if top_p is not None and not 0 < top_p <= 1:
        raise ValueError("top_p must be in (0, 1]")
    z = logits / temperature
    probs = np.exp(z - z.max())
    probs /= probs.sum()
    order = np.argsort(-probs, kind="stable")
    if top_k is not None and top_k < len(probs):
        probs[order[top_k:]] = 0.0
        probs /= probs.sum()
    if top_p is not None:
        cum = np.cumsum(probs[order])
        keep = min(int(np.searchsorted(cum, top_p)) + 1, len(probs))
        probs[order[keep:]] = 0.0
        probs /= probs.sum()
    return probs


def sample(logits, temperature=1.0, top_k=None, top_p=None, rng=None):
    rng = np.random.default_rng() if rng is None else rng
    probs = sampling_probs(logits, temperature, top_k, top_p)
    return int(rng.choice(len(probs), p=probs))
