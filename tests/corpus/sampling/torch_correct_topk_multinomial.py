# attnprep: sampling
# expect: pass
# style: PyTorch, torch.topk for the top-k filter, sort + cumsum for top-p, torch.multinomial with the generator
import torch


def sampling_probs(logits, temperature=1.0, top_k=None, top_p=None):
    if temperature < 0 or (top_k is not None and top_k < 1) or (top_p is not None and not 0 < top_p <= 1):
        raise ValueError("bad sampling parameters")
    V = logits.shape[-1]
    if temperature == 0:
        out = torch.zeros_like(logits, dtype=torch.float64)
        out[logits.argmax()] = 1.0
        return out
    probs = torch.softmax(logits / temperature, dim=-1)
    if top_k is not None and top_k < V:
        kept = torch.topk(probs, top_k).indices
        mask = torch.zeros(V, dtype=torch.bool)
        mask[kept] = True
        probs = probs.masked_fill(~mask, 0.0)
        probs = probs / probs.sum()
    if top_p is not None:
        sorted_p, idx = torch.sort(probs, descending=True, stable=True)
        cum = sorted_p.cumsum(dim=-1)
        drop = (cum - sorted_p) >= top_p  # tokens whose predecessors already reach top_p
        probs = probs.clone()
        probs[idx[drop]] = 0.0
        probs = probs / probs.sum()
    return probs


def sample(logits, temperature=1.0, top_k=None, top_p=None, rng=None):
    probs = sampling_probs(logits, temperature, top_k, top_p)
    return torch.multinomial(probs, num_samples=1, generator=rng).item()
