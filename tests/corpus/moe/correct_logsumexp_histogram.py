# attnprep: moe
# expect: pass
# style: top k by np.lexsort per row (logit descending, index as tie-break), gates as exp(top - logsumexp(top)) via a hand-written logsumexp, f_e from np.histogram with integer bin edges, np.int64 k accepted, keyword-call friendly
import numpy as np


def logsumexp(a, axis, keepdims):
    m = a.max(axis=axis, keepdims=True)
    out = m + np.log(np.exp(a - m).sum(axis=axis, keepdims=True))
    return out if keepdims else out.squeeze(axis)


def route_top_k(x, W_router, k, *, dtype=np.float64):
    logits = np.asarray(x, dtype=dtype) @ np.asarray(W_router, dtype=dtype)
    T, E = logits.shape
    k = int(k)
    if k < 1 or k > E:
        raise ValueError("need 1 <= k <= E")
    order = np.stack([np.lexsort((np.arange(E), -row)) for row in logits])
    idx = order[:, :k]
    top = np.take_along_axis(logits, idx, axis=1)
    return idx, np.exp(top - logsumexp(top, axis=1, keepdims=True))


def load_balance_loss(router_logits, expert_idx, n_experts):
    idx = np.asarray(expert_idx).ravel()
    counts, _ = np.histogram(idx, bins=np.arange(n_experts + 1))
    f = counts / idx.size
    z = np.asarray(router_logits, dtype=float)
    P = np.exp(z - logsumexp(z, axis=1, keepdims=True)).mean(axis=0)
    return float(n_experts * (f * P).sum())
