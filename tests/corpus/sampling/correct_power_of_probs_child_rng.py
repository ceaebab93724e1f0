# attnprep: sampling
# expect: pass
# style: temperature as a power of the T=1 log-probabilities (log p / T, renormalised: the same as logits / T);
#        sample spawns a child generator seeded from the rng passed in (still only that rng's randomness)
import numpy as np


def _log_softmax(x):
    m = np.max(x)
    return x - m - np.log(np.sum(np.exp(x - m)))


def sampling_probs(logits, temperature=1.0, top_k=None, top_p=None):
    if temperature < 0:
        raise ValueError("negative temperature")
    if top_k is not None and top_k < 1:
        raise ValueError("top_k must be >= 1")
    if top_p is not None and not 0.0 < top_p <= 1.0:
        raise ValueError("top_p must be in (0, 1]")
    x = np.array(logits, dtype=np.float64)
    if temperature == 0:
        return np.eye(1, x.size, int(np.argmax(x)))[0]
    logp = _log_softmax(_log_softmax(x) / temperature)  # p ** (1 / T), renormalised, in log space
    p = np.exp(logp)
    ranked = np.argsort(-p, kind="stable")
    if top_k is not None:
        p[ranked[top_k:]] = 0.0
        p = p / p.sum()
    if top_p is not None:
        running = np.cumsum(p[ranked])
        reached = np.flatnonzero(running >= top_p)
        last = reached[0] if reached.size else p.size - 1
        p[ranked[last + 1:]] = 0.0
        p = p / p.sum()
    return p


def sample(logits, temperature=1.0, top_k=None, top_p=None, rng=None):
    p = sampling_probs(logits, temperature, top_k, top_p)
    parent = rng if rng is not None else np.random.default_rng()
    child = np.random.default_rng(parent.integers(2**63))  # drawn from the parent, so it advances it
    return int(child.choice(p.size, p=p))
