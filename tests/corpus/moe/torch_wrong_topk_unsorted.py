# attnprep: moe
# expect: fail order
# mistake: PyTorch, torch.topk(..., sorted=False) and then torch.sort of the indices: experts in index order
# must-pass: stable
import torch


def route_top_k(x, W_router, k):
    logits = x @ W_router
    if not 1 <= k <= logits.shape[-1]:
        raise ValueError("k must be between 1 and the number of experts")
    idx = torch.sort(torch.topk(logits, k, dim=-1, sorted=False).indices, dim=-1).values
    return idx, torch.softmax(logits.gather(-1, idx), dim=-1)


def load_balance_loss(router_logits, expert_idx, n_experts):
    f = torch.bincount(expert_idx.flatten(), minlength=n_experts).to(router_logits.dtype) / expert_idx.numel()
    return float(n_experts * (f * torch.softmax(router_logits, dim=-1).mean(0)).sum())
