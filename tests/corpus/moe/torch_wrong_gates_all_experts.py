# attnprep: moe
# expect: fail gates-sum-to-one
# mistake: PyTorch, the gates are the softmax over all experts, gathered at the top k (no renormalisation)
# diagnosis: gates-over-all-experts
# must-pass: stable
import torch


def route_top_k(x, W_router, k):
    logits = x @ W_router
    if not 1 <= k <= logits.shape[-1]:
        raise ValueError("k must be between 1 and the number of experts")
    probs = torch.softmax(logits, dim=-1)
    gates, idx = torch.topk(probs, k, dim=-1)
    return idx, gates


def load_balance_loss(router_logits, expert_idx, n_experts):
    f = torch.bincount(expert_idx.flatten(), minlength=n_experts).to(router_logits.dtype) / expert_idx.numel()
    return float(n_experts * (f * torch.softmax(router_logits, dim=-1).mean(0)).sum())
