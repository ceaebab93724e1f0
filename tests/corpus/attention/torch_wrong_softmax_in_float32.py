# attnprep: attention
# expect: fail stable matches-reference
# must-pass: scale mask sum-to-one batch-dims
# mistake: the softmax runs in float32 (scores.float(), the mixed-precision habit) and is cast back to float64
# diagnosis: softmax-in-float32
import torch


def attention(q, k, v, mask=None):
    d_k = q.shape[-1]
    scores = q @ k.transpose(-2, -1) / d_k ** 0.5
    if mask is not None:
        scores = scores.masked_fill(mask, float("-inf"))
    w = torch.softmax(scores.float(), dim=-1).to(v.dtype)
    return w @ v
