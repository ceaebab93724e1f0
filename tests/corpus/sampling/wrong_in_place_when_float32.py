# attnprep: sampling
# expect: fail input-unchanged
# must-pass: temperature top-k top-p matches-reference distribution reproducible stable bad-input
# mistake: leaves float32 logits in float32 (to save memory on a big vocabulary) and upcasts anything else with
#          astype, then divides by the temperature in place: a copy for float64 logits, but the caller's own array
#          when the logits already are float32
import numpy as np


def _validate(temperature, top_k, top_p):
    if temperature < 0:
        raise ValueError(f"temperature must be >= 0, got {temperature}")
    if top_k is not None and top_k < 1:
        raise ValueError(f"top_k must be >= 1, got {top_k}")
    if top_p is not None and not 0.0 < top_p <= 1.0:
        raise ValueError(f"top_p must be in (0, 1], got {top_p}")


def sampling_probs(logits, temperature=1.0, top_k=None, top_p=None):
    _validate(temperature, top_k, top_p)
    if temperature == 0:
        probs = np.zeros(len(logits))
        probs[int(np.argmax(logits))] = 1.0
        return probs
    scaled = np.asarray(logits)
    if scaled.dtype != np.float32:
        scaled = scaled.astype(np.float64)
    if temperature != 1.0:
        scaled /= temperature
    z = scaled.astype(np.float64)
    probs = np.exp(z - z.max())
    probs /= probs.sum()
    order = np.argsort(-probs, kind="stable")
    if top_k is not None and top_k < len(probs):
        probs[order[top_k:]] = 0.0
        probs /= probs.sum()
    if top_p is not None:
        sorted_probs = probs[order]
        before = np.cumsum(sorted_probs) - sorted_probs  # mass ahead of each token
        probs[order[before >= top_p]] = 0.0
        probs /= probs.sum()
    return probs


def sample(logits, temperature=1.0, top_k=None, top_p=None, rng=None):
    if rng is None:
        rng = np.random.default_rng()
    probs = sampling_probs(logits, temperature, top_k, top_p)
    return int(rng.choice(len(probs), p=probs))
