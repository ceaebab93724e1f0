# attnprep: moe
# expect: pass
# style: PyTorch, torch.topk highest first, softmax over the chosen logits, F.one_hot counts for f
import torch  # noqa: F401 - the tensors this file works on are torch tensors
import torch.nn.functional as F


def route_top_k(x, W_router, k):
    logits = x @ W_router
    if not 1 <= k <= logits.shape[-1]:
        raise ValueError("k must be between 1 and the number of experts")
    vals, idx = logits.topk(k, dim=-1)
    return idx, F.softmax(vals, dim=-1)


def load_balance_loss(router_logits, expert_idx, n_experts):
    f = F.one_hot(expert_idx, n_experts).to(router_logits.dtype).sum(dim=(0, 1)) / expert_idx.numel()
    P = F.softmax(router_logits, dim=-1).mean(dim=0)
    return (n_experts * (f * P).sum()).item()
