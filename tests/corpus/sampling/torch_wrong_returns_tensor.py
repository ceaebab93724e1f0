# attnprep: sampling
# expect: fail token-id
# mistake: PyTorch, returns torch.multinomial's result, a tensor of shape (1,), instead of .item()
# must-pass: distribution reproducible
import torch


def sampling_probs(logits, temperature=1.0, top_k=None, top_p=None):
    if temperature < 0 or (top_k is not None and top_k < 1) or (top_p is not None and not 0 < top_p <= 1):
        raise ValueError("bad sampling parameters")
    V = logits.shape[-1]
    if temperature == 0:
        out = torch.zeros(V, dtype=torch.float64)
        out[logits.argmax()] = 1.0
        return out
    probs = torch.softmax(logits / temperature, dim=-1)
    order = torch.sort(probs, descending=True, stable=True).indices
    if top_k is not None and top_k < V:
        probs[order[top_k:]] = 0.0
        probs = probs / probs.sum()
    if top_p is not None:
        cum = probs[order].cumsum(0)
        n_keep = min(int((cum < top_p).sum()) + 1, V)
        probs[order[n_keep:]] = 0.0
        probs = probs / probs.sum()
    return probs


def sample(logits, temperature=1.0, top_k=None, top_p=None, rng=None):
    return torch.multinomial(sampling_probs(logits, temperature, top_k, top_p), 1, generator=rng)
