# attnprep: sampling
# expect: fail stable
# must-pass: sum-to-one temperature top-k top-p matches-reference distribution bad-input input-unchanged
# mistake: centres the scaled logits on their mean and lowers them further only as far as keeps the largest exp at
#          e**700; each term is finite, but with thousands of tokens near the top the sum passes 1.8e308 and every
#          probability comes out 0 (the maximum, not the mean, is the shift that bounds the sum)
import numpy as np

EXP_CEILING = 700.0  # np.exp overflows just past 709.78


def sampling_probs(logits, temperature=1.0, top_k=None, top_p=None):
    if temperature < 0 or (top_k is not None and top_k < 1) or (top_p is not None and not 0 < top_p <= 1):
        raise ValueError("temperature must be >= 0, top_k >= 1 and top_p in (0, 1]")
    x = np.array(logits, dtype=np.float64)
    if temperature == 0:
        one_hot = np.zeros_like(x)
        one_hot[np.argmax(x)] = 1.0
        return one_hot
    z = x / temperature
    z -= z.mean()
    if z.max() > EXP_CEILING:
        z -= z.max() - EXP_CEILING
    weights = np.exp(z)
    if top_k is not None and top_k < z.size:
        cut = np.argsort(-weights, kind="stable")[top_k:]
        weights[cut] = 0.0
    probs = weights / weights.sum()
    if top_p is not None:
        order = np.argsort(-probs, kind="stable")
        ahead = np.concatenate(([0.0], np.cumsum(probs[order])[:-1]))
        probs[order[ahead >= top_p]] = 0.0
        probs /= probs.sum()
    return probs


def sample(logits, temperature=1.0, top_k=None, top_p=None, rng=None):
    rng = rng if rng is not None else np.random.default_rng()
    probs = sampling_probs(logits, temperature, top_k, top_p)
    return int(rng.choice(probs.size, p=probs))
