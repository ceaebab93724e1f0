# attnprep: sampling
# expect: pass
# style: filters mask the scaled logits with -1e9 (threshold for top-k, shifted cumulative sum for top-p), rng.choice
import numpy as np


def _softmax(x):
    e = np.exp(x - np.max(x))
    return e / np.sum(e)


def sampling_probs(logits, temperature=1.0, top_k=None, top_p=None):
    if temperature < 0:
        raise ValueError(f"temperature={temperature}")
    if top_k is not None and top_k < 1:
        raise ValueError(f"top_k={top_k}")
    if top_p is not None and not 0.0 < top_p <= 1.0:
        raise ValueError(f"top_p={top_p}")
    scores = np.array(logits, dtype=np.float64, copy=True)
    if temperature == 0.0:
        onehot = np.zeros_like(scores)
        onehot[np.argmax(scores)] = 1.0
        return onehot
    scores /= temperature
    if top_k is not None:
        k = min(top_k, scores.size)
        kth = np.sort(scores)[-k]
        scores[scores < kth] = -1e9
    if top_p is not None:
        p = _softmax(scores)
        idx = np.argsort(p)[::-1]
        sorted_p = p[idx]
        before = np.cumsum(sorted_p) - sorted_p  # mass of the more probable tokens
        remove = idx[before >= top_p]
        scores[remove] = -1e9
    out = _softmax(scores)
    out[scores <= -1e9] = 0.0
    return out / out.sum()


def sample(logits, temperature=1.0, top_k=None, top_p=None, rng=None):
    rng = rng if rng is not None else np.random.default_rng()
    p = sampling_probs(logits, temperature=temperature, top_k=top_k, top_p=top_p)
    return rng.choice(p.size, p=p)
