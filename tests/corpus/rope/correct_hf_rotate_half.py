# attnprep: rope
# expect: pass
# style: Hugging Face style: cos/sin duplicated to width d, x*cos + rotate_half(x)*sin
import numpy as np


def rotate_half(x):
    x1, x2 = np.split(x, 2, axis=-1)
    return np.concatenate((-x2, x1), axis=-1)


def rope(x, positions, base=10000.0):
    dim = x.shape[-1]
    if dim % 2 == 1:
        raise ValueError("RoPE needs an even head dimension")
    inv_freq = 1.0 / (base ** (np.arange(0, dim, 2, dtype=np.float64) / dim))
    freqs = np.einsum("t,f->tf", positions.astype(np.float64), inv_freq)
    emb = np.concatenate((freqs, freqs), axis=-1)
    return x * np.cos(emb) + rotate_half(x) * np.sin(emb)
