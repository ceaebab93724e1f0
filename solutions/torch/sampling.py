# attnprep: sampling torch
"""Reference solution in PyTorch: temperature, top-k and top-p (nucleus) sampling."""

import torch


def sampling_probs(logits, temperature=1.0, top_k=None, top_p=None):
    if temperature < 0:
        raise ValueError(f"temperature must be >= 0, got {temperature}")
    if top_k is not None and top_k < 1:
        raise ValueError(f"top_k must be >= 1, got {top_k}")
    if top_p is not None and not 0 < top_p <= 1:
        raise ValueError(f"top_p must be in (0, 1], got {top_p}")
    V = logits.shape[0]
    if temperature == 0:
        # torch.argmax returns the first index among ties, like np.argmax.
        probs = torch.zeros(V, dtype=logits.dtype)
        probs[torch.argmax(logits)] = 1.0
        return probs
    probs = torch.softmax(logits / temperature, dim=-1)
    # A stable sort keeps the lower index first among equal probabilities (torch.topk would not promise it).
    order = torch.sort(probs, descending=True, stable=True).indices
    if top_k is not None and top_k < V:
        probs[order[top_k:]] = 0.0
        probs = probs / probs.sum()
    if top_p is not None:
        # Keep up to and including the first token at which the running total reaches top_p.
        cum = torch.cumsum(probs[order], dim=0)
        n_keep = min(int(torch.searchsorted(cum, torch.tensor([top_p], dtype=cum.dtype))[0]) + 1, V)
        probs[order[n_keep:]] = 0.0
        probs = probs / probs.sum()
    return probs


def sample(logits, temperature=1.0, top_k=None, top_p=None, rng=None):
    probs = sampling_probs(logits, temperature, top_k, top_p)
    if rng is None:
        rng = torch.Generator()
        rng.seed()
    # Draw from the generator passed in, and return a Python int, not a tensor of shape (1,).
    return int(torch.multinomial(probs, 1, generator=rng).item())
