# attnprep: moe
# expect: pass
# style: k rounds of argmax on a private copy with the chosen expert set to -inf; np.histogram for f_e; **kwargs
import numpy as np


def route_top_k(x, W_router, k, **kwargs):
    logits = x @ W_router
    T, E = logits.shape
    if k > E or k < 1:
        raise ValueError("k must be between 1 and E")
    work = logits.copy()
    rows = np.arange(T)
    idx = np.empty((T, k), dtype=int)
    for j in range(k):
        idx[:, j] = np.argmax(work, axis=1)
        work[rows, idx[:, j]] = -np.inf                  # never pick it again
    top = logits[rows[:, None], idx]
    lse = np.logaddexp.reduce(top, axis=1, keepdims=True)
    return idx, np.exp(top - lse)


def load_balance_loss(router_logits, expert_idx, n_experts, **kwargs):
    hist, _ = np.histogram(expert_idx, bins=np.arange(n_experts + 1))
    f = hist / hist.sum()
    lse = np.logaddexp.reduce(router_logits, axis=1, keepdims=True)
    P = np.exp(router_logits - lse).mean(axis=0)
    return (n_experts * f * P).sum().item()
