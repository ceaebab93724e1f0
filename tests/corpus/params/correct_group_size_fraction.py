# attnprep: params
# expect: pass
# style: K/V width through the integer group size (n_heads // group), a generator of (rows, cols) shapes summed with
#        math.prod; weights_gib through an exact Fraction converted to float once
import math
from fractions import Fraction


def count_params(vocab_size, d_model, n_layers, n_heads, n_kv_heads, head_dim, d_ff, tied_embeddings=False):
    args = locals().copy()
    args.pop("tied_embeddings")
    for name, value in args.items():
        if value < 1:
            raise ValueError(f"{name} must be >= 1, got {value}")
    group, rest = divmod(n_heads, n_kv_heads)
    if rest:
        raise ValueError("n_heads must be a multiple of n_kv_heads")
    q_width = n_heads * head_dim
    kv_width = (n_heads // group) * head_dim
    block = [(d_model, q_width), (d_model, kv_width), (d_model, kv_width), (q_width, d_model),
             (d_model, d_ff), (d_model, d_ff), (d_ff, d_model), (1, d_model), (1, d_model)]
    shapes = [(vocab_size, d_model)] + block * n_layers + [(1, d_model)]
    if not tied_embeddings:
        shapes.append((d_model, vocab_size))
    return sum(math.prod(s) for s in shapes)


def weights_gib(n_params, bits):
    return float(Fraction(n_params * bits, 8 * 1024**3))
