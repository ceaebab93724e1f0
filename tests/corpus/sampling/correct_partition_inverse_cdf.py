# attnprep: sampling
# expect: pass
# style: np.partition threshold for top-k, sort-based top-p, inverse-CDF sampling with rng.random()
import numpy as np


def sampling_probs(logits, temperature=1.0, top_k=None, top_p=None):
    if temperature < 0:
        raise ValueError("temperature < 0")
    if top_k is not None and top_k < 1:
        raise ValueError("top_k < 1")
    if top_p is not None and (top_p <= 0 or top_p > 1):
        raise ValueError("top_p not in (0, 1]")
    x = np.asarray(logits, dtype=np.float64)
    n = x.size
    if temperature == 0:
        return np.eye(n)[np.argmax(x)]
    w = np.exp((x - x.max()) / temperature)
    if top_k is not None and top_k < n:
        kth_largest = np.partition(w, n - top_k)[n - top_k]
        w = np.where(w >= kth_largest, w, 0.0)
    p = w / w.sum()
    if top_p is not None:
        srt = np.sort(p)[::-1]
        cum = np.cumsum(srt)
        last = np.nonzero(cum >= top_p)[0]
        threshold = srt[last[0]] if last.size else srt[-1]
        p = np.where(p >= threshold, p, 0.0)
        p = p / p.sum()
    return p


def sample(logits, temperature=1.0, top_k=None, top_p=None, rng=None):
    if rng is None:
        rng = np.random.default_rng()
    cdf = np.cumsum(sampling_probs(logits, temperature, top_k, top_p))
    u = rng.random() * cdf[-1]
    return min(int(np.searchsorted(cdf, u, side="right")), cdf.size - 1)
