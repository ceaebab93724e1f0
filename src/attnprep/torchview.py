"""The PyTorch view of an exercise (`show SLUG --torch`): what the functions receive and return as tensors."""

from __future__ import annotations

from attnprep.catalogue import Exercise

_COMMON = """## In PyTorch

Your functions receive CPU tensors: float64 for float inputs (the precision of the
reference, so a correct solution is judged at float64; one that builds float32 tensors
and returns float32 is judged at float32 precision), int64 for integer inputs, bool for
masks, and dicts, lists and tuples of those. Numbers stay Python numbers. Return tensors
(or Python numbers where the exercise asks for a number): they are read back for you,
`.detach()`, device and non-contiguous views included. Modifying an argument in place
(`q /= ...`, `z.sub_(...)`) fails `input-unchanged`, as in NumPy.

Where NumPy writes `axis=` and `keepdims=True`, PyTorch writes `dim=` and `keepdim=True`;
`x.T` on a tensor of more than two dimensions is not the transpose of the last two axes:
write `x.transpose(-2, -1)`. `view` needs contiguous memory (after a transpose, call
`.contiguous()` or use `reshape`).
"""

_EXTRA = {
    "softmax": "The exercise keeps the parameter name `axis`; pass it on as `dim=axis`. `torch.softmax`, "
               "`F.softmax` and `logsumexp` are what you are asked to write, so the `from-scratch` check fails "
               "a file that calls them.",
    "causal": "`torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)` is the mask; "
              "`scores.masked_fill(mask, float('-inf'))` applies it.",
    "attention": "Batch dimensions broadcast as in NumPy; `k.transpose(-2, -1)`, never `k.T`. A mask is a bool "
                 "tensor: `scores.masked_fill(mask, float('-inf'))`.",
    "mha": "Split with `x.view(B, T, n_heads, d_head).transpose(1, 2)`; merge with `.transpose(1, 2)` then "
           "`.reshape(B, T, d_model)` (or `.contiguous().view(...)`).",
    "gqa": "`k.repeat_interleave(n_heads // n_kv_heads, dim=1)` maps query head h to KV head "
           "h // (n_heads // n_kv_heads); `repeat` along that dimension would not.",
    "sampling": "`rng` is a `torch.Generator`: draw with `torch.multinomial(probs, 1, generator=rng)` and return "
                "`.item()`, a Python int, not the tensor of shape (1,). `torch.topk` may order tied values "
                "differently from a stable argsort; the checks avoid ties where order is judged.",
    "xent": "`targets` is an int64 tensor, ready for `logits.gather(1, targets[:, None])`; return a Python "
            "float (`.item()`) or a 0-d tensor. `F.cross_entropy` is what you are asked to write.",
    "rmsnorm": "`torch.rsqrt`, `x.pow(2).mean(dim=-1, keepdim=True)`; `x.var(dim=-1)` is the sample variance "
               "(unbiased) unless you pass `unbiased=False`: the exercise wants the population variance.",
    "rope": "`positions` is an int64 tensor: convert it with `.to(x.dtype)` before multiplying by frequencies.",
    "moe": "`torch.topk(logits, k, dim=-1)` returns values and indices, highest first.",
    "flash": "The `memory` check measures the worker from outside, so tensors count as much as arrays.",
    "decode": "The cache is a tuple of tensors (or None); return new tensors (`torch.cat`), never grow the "
              "ones you were given in place.",
    "block": "`params` is a dict of tensors; do not assign into it.",
}


def notes(ex: Exercise) -> str:
    """The Markdown section `show SLUG --torch` adds after the instructions."""
    extra = _EXTRA.get(ex.slug)
    return _COMMON + (f"\nFor this exercise: {extra}\n" if extra else "")
