# attnprep: sampling
# expect: pass
# style: correct; filters in log space with -inf masks, renormalises by logsumexp, and samples with Gumbel-max (rng.gumbel)
import numpy as np


class _Filter:
    def __init__(self, temperature, top_k, top_p):
        if temperature < 0:
            raise ValueError("temperature must be >= 0")
        if top_k is not None and top_k < 1:
            raise ValueError("top_k must be >= 1")
        if top_p is not None and not (0 < top_p <= 1):
            raise ValueError("top_p must be in (0, 1]")
        self.t, self.k, self.p = temperature, top_k, top_p

    @staticmethod
    def _lognorm(s):
        m = np.max(s)
        return s - (m + np.log(np.sum(np.exp(s - m))))

    def log_probs(self, logits):
        x = np.asarray(logits, dtype=np.float64)
        V = x.shape[0]
        if self.t == 0:
            lp = np.full(V, -np.inf)
            lp[np.argmax(x)] = 0.0
            return lp
        lp = self._lognorm(x / self.t)
        if self.k is not None and self.k < V:
            order = np.argsort(-lp, kind="stable")
            lp = lp.copy()
            lp[order[self.k:]] = -np.inf
            lp = self._lognorm(lp)
        if self.p is not None and self.p < 1.0:  # 1.0 keeps every token
            order = np.argsort(-lp, kind="stable")
            sp = np.exp(lp[order])
            before = np.concatenate(([0.0], np.cumsum(sp)[:-1]))
            out = np.full(V, -np.inf)
            # a running total within rounding of top_p counts as reaching it
            sel = order[before < self.p - 1e-12]
            out[sel] = lp[sel]
            lp = self._lognorm(out)
        return lp


def sampling_probs(logits, temperature=1.0, top_k=None, top_p=None):
    return np.exp(_Filter(temperature, top_k, top_p).log_probs(logits))


def sample(logits, temperature=1.0, top_k=None, top_p=None, rng=None):
    lp = _Filter(temperature, top_k, top_p).log_probs(logits)
    if rng is None:
        rng = np.random.default_rng()
    g = rng.gumbel(size=lp.shape[0])
    return int(np.argmax(lp + g))
