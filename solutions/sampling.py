# attnprep: sampling
"""Reference solution: temperature, top-k and top-p (nucleus) sampling."""

import numpy as np


def sampling_probs(logits, temperature=1.0, top_k=None, top_p=None):
    # Validate first, so a bad argument is reported whatever else is passed.
    if temperature < 0:
        raise ValueError(f"temperature must be >= 0, got {temperature}")
    if top_k is not None and top_k < 1:
        raise ValueError(f"top_k must be >= 1, got {top_k}")
    if top_p is not None and not 0 < top_p <= 1:
        raise ValueError(f"top_p must be in (0, 1], got {top_p}")

    logits = np.asarray(logits, dtype=np.float64)
    V = logits.shape[0]

    # Temperature 0 is the limit T -> 0: all the mass on the argmax. np.argmax
    # returns the first index among ties. Dividing by 0 would give inf - inf = nan.
    if temperature == 0:
        probs = np.zeros(V)
        probs[np.argmax(logits)] = 1.0
        return probs

    # Temperature divides the logits, not the probabilities; subtracting the
    # maximum keeps exp from overflowing at logits near 1e4 or tiny temperatures.
    z = logits / temperature
    probs = np.exp(z - z.max())
    probs /= probs.sum()

    # A stable sort puts the lower index first among equal probabilities.
    order = np.argsort(-probs, kind="stable")

    if top_k is not None and top_k < V:
        probs[order[top_k:]] = 0.0
        probs /= probs.sum()

    if top_p is not None:
        # Cumulative mass of the most probable tokens, on the renormalised
        # distribution left by top-k. Keep up to and including the first token
        # at which the running total reaches top_p (searchsorted side="left"
        # finds the first index with cum >= top_p); rounding may leave the
        # total just under 1.0, hence the min.
        cum = np.cumsum(probs[order])
        n_keep = min(int(np.searchsorted(cum, top_p, side="left")) + 1, V)
        probs[order[n_keep:]] = 0.0
        probs /= probs.sum()

    return probs


def sample(logits, temperature=1.0, top_k=None, top_p=None, rng=None):
    probs = sampling_probs(logits, temperature, top_k, top_p)
    if rng is None:
        rng = np.random.default_rng()
    # Draw from the generator passed in (never np.random.* or a new seed), so
    # the same seed replays the same tokens and each call advances the stream.
    return int(rng.choice(len(probs), p=probs))
