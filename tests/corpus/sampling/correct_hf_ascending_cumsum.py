# attnprep: sampling
# expect: pass
# style: Hugging Face style: -inf logit masks, top-k by argpartition, top-p removes the ascending cumsum <= 1 - top_p
import numpy as np


def _check(temperature, top_k, top_p):
    if temperature < 0:
        raise ValueError("temperature must be non-negative")
    if top_k is not None and top_k < 1:
        raise ValueError("top_k must be at least 1")
    if top_p is not None and not (0 < top_p <= 1):
        raise ValueError("top_p must be in (0, 1]")


def _softmax(scores):
    m = np.max(scores)
    lse = m + np.log(np.sum(np.exp(scores - m)))
    return np.exp(scores - lse)


def sampling_probs(logits, temperature=1.0, top_k=None, top_p=None):
    _check(temperature, top_k, top_p)
    scores = np.array(logits, dtype=np.float64)
    vocab = scores.shape[-1]
    if temperature == 0:
        greedy = np.zeros(vocab)
        greedy[int(np.argmax(scores))] = 1.0
        return greedy
    scores = scores / temperature
    if top_k is not None and top_k < vocab:
        drop = np.argpartition(-scores, top_k - 1)[top_k:]
        scores[drop] = -np.inf
    if top_p is not None:
        order = np.argsort(scores)  # ascending: least probable first
        cum = np.cumsum(_softmax(scores)[order])
        remove = cum <= 1 - top_p
        remove[-1] = False  # always keep the most probable token
        scores[order[remove]] = -np.inf
    return _softmax(scores)


def sample(logits, temperature=1.0, top_k=None, top_p=None, rng=None):
    probs = sampling_probs(logits, temperature=temperature, top_k=top_k, top_p=top_p)
    rng = np.random.default_rng() if rng is None else rng
    return int(rng.choice(probs.shape[0], p=probs))
