# attnprep: moe torch
"""Reference solution in PyTorch: top-k mixture-of-experts routing and its load-balancing loss."""

import torch


def route_top_k(x, W_router, k):
    logits = x @ W_router  # (T, E)
    n_experts = logits.shape[-1]
    if not 1 <= k <= n_experts:
        raise ValueError(f"k must be between 1 and the number of experts ({n_experts}), got {k}")
    # topk returns the k largest, highest first, with their indices.
    top, expert_idx = torch.topk(logits, k, dim=-1)
    gates = torch.softmax(top, dim=-1)
    return expert_idx, gates


def load_balance_loss(router_logits, expert_idx, n_experts):
    expert_idx = torch.as_tensor(expert_idx)
    counts = torch.bincount(expert_idx.reshape(-1), minlength=n_experts)
    f = counts.to(router_logits.dtype) / expert_idx.numel()
    P = torch.softmax(router_logits, dim=-1).mean(dim=0)
    return float(n_experts * (f * P).sum())
