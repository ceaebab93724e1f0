# attnprep: sampling
# expect: pass
# style: scipy-free log-space: log-probs via logsumexp, filters as thresholds on sorted values,
#        sample over the kept tokens only with rng.choice(kept, p=...); greedy never touches the rng
import numpy as np


def _logsumexp(a):
    m = a.max()
    return m + np.log(np.exp(a - m).sum())


def sampling_probs(logits, temperature=1.0, top_k=None, top_p=None):
    if not temperature >= 0:
        raise ValueError("temperature must be >= 0")
    if top_k is not None and not top_k >= 1:
        raise ValueError("top_k must be >= 1")
    if top_p is not None and not 0 < top_p <= 1:
        raise ValueError("top_p must lie in (0, 1]")
    logits = np.asarray(logits)
    if temperature == 0:
        return (np.arange(logits.size) == np.argmax(logits)).astype(float)
    logp = logits / temperature
    logp = logp - _logsumexp(logp)
    keep = np.ones(logp.size, dtype=bool)
    if top_k is not None and top_k < logp.size:
        kth = np.sort(logp)[::-1][top_k - 1]
        keep &= logp >= kth
        logp = np.where(keep, logp - _logsumexp(logp[keep]), -np.inf)
    if top_p is not None:
        desc = np.sort(logp[keep])[::-1]
        cum = np.cumsum(np.exp(desc))
        cut = min(int(np.sum(cum < top_p)), desc.size - 1)  # index of the token that reaches top_p
        keep &= logp >= desc[cut]
    out = np.where(keep, np.exp(logp), 0.0)
    return out / out.sum()


def sample(logits, temperature=1.0, top_k=None, top_p=None, rng=None):
    p = sampling_probs(logits, temperature, top_k, top_p)
    kept = np.flatnonzero(p)
    if kept.size == 1:
        return int(kept[0])
    if rng is None:
        rng = np.random.default_rng()
    return int(rng.choice(kept, p=p[kept] / p[kept].sum()))
