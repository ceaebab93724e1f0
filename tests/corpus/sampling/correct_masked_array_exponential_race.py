# attnprep: sampling
# expect: pass
# style: numpy masked arrays for the filters; sampling by an exponential race (argmin of Exp(1) / p)
import numpy as np
import numpy.ma as ma


def sampling_probs(logits, temperature=1.0, top_k=None, top_p=None, **_ignored):
    if temperature < 0:
        raise ValueError("temperature < 0")
    if top_k is not None and top_k < 1:
        raise ValueError("top_k < 1")
    if top_p is not None and (top_p <= 0 or top_p > 1):
        raise ValueError("top_p outside (0, 1]")
    x = np.asarray(logits, dtype=float)
    if temperature == 0:
        out = np.zeros_like(x)
        out[x.argmax()] = 1.0
        return out
    z = ma.masked_array(x / temperature, mask=np.zeros(x.shape, dtype=bool))
    if top_k is not None and top_k < x.size:
        ranks = np.argsort(np.argsort(-z.data, kind="stable"), kind="stable")
        z[ranks >= top_k] = ma.masked

    def probs_of(masked):
        e = ma.exp(masked - masked.max())
        return (e / e.sum()).filled(0.0)

    if top_p is not None:
        p = probs_of(z)
        order = np.argsort(-p, kind="stable")
        cum_before = np.cumsum(p[order]) - p[order]
        z[order[cum_before >= top_p]] = ma.masked
    return probs_of(z)


def sample(logits, temperature=1.0, top_k=None, top_p=None, rng=None, **_ignored):
    if rng is None:
        rng = np.random.default_rng()
    p = sampling_probs(logits, temperature, top_k, top_p)
    with np.errstate(divide="ignore"):
        race = rng.exponential(size=p.size) / p  # a filtered token waits forever
    return int(np.argmin(race))
