# attnprep: params
# expect: pass
# style: walks the model layer by layer, adding up matrix shapes
import math


def _size(shape):
    return math.prod(shape)


def count_params(vocab_size, d_model, n_layers, n_heads, n_kv_heads, head_dim, d_ff, tied_embeddings=False):
    if min(vocab_size, d_model, n_layers, n_heads, n_kv_heads, head_dim, d_ff) < 1:
        raise ValueError("every size must be at least 1")
    if n_heads % n_kv_heads != 0:
        raise ValueError("n_heads must be divisible by n_kv_heads")
    total = _size((vocab_size, d_model))
    for _ in range(n_layers):
        layer = [
            (d_model,),                          # attention norm
            (d_model, n_heads * head_dim),       # W_q
            (d_model, n_kv_heads * head_dim),    # W_k
            (d_model, n_kv_heads * head_dim),    # W_v
            (n_heads * head_dim, d_model),       # W_o
            (d_model,),                          # feed-forward norm
            (d_model, d_ff), (d_model, d_ff),    # W_gate, W_up
            (d_ff, d_model),                     # W_down
        ]
        total += sum(_size(s) for s in layer)
    total += d_model
    if not tied_embeddings:
        total += _size((d_model, vocab_size))
    return total


def weights_gib(n_params, bits):
    return (n_params * bits) / (8 * 2 ** 30)
