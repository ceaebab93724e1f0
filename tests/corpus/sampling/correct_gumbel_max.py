# attnprep: sampling
# expect: pass
# style: log-space filters with -inf, log-sum-exp normalisation, Gumbel-max sampling
import numpy as np


def _log_probs(logits, temperature, top_k, top_p):
    if temperature < 0 or (top_k is not None and top_k < 1) or (top_p is not None and not 0 < top_p <= 1):
        raise ValueError("bad sampling parameters")
    logits = np.array(logits, dtype=float)
    if temperature == 0:
        out = np.full(logits.shape, -np.inf)
        out[logits.argmax()] = 0.0
        return out
    z = logits / temperature
    z = z - (z.max() + np.log(np.exp(z - z.max()).sum()))  # log softmax
    if top_k is not None and top_k < z.size:
        kth = np.argsort(-z, kind="stable")[top_k:]
        z[kth] = -np.inf
        z = z - (z.max() + np.log(np.exp(z - z.max()).sum()))
    if top_p is not None:
        order = np.argsort(-z, kind="stable")
        mass_before = np.concatenate(([0.0], np.cumsum(np.exp(z[order]))[:-1]))
        z[order[mass_before >= top_p]] = -np.inf  # a token is needed while the mass before it is short of p
        z = z - (z.max() + np.log(np.exp(z - z.max()).sum()))
    return z


def sampling_probs(logits, temperature=1.0, top_k=None, top_p=None):
    return np.exp(_log_probs(logits, temperature, top_k, top_p))


def sample(logits, temperature=1.0, top_k=None, top_p=None, rng=None):
    rng = np.random.default_rng() if rng is None else rng
    log_p = _log_probs(logits, temperature, top_k, top_p)
    # argmax of log p + Gumbel noise is a draw from p; -inf stays -inf.
    return int(np.argmax(log_p + rng.gumbel(size=log_p.shape)))
