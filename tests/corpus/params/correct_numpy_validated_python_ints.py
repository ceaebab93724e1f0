# attnprep: params
# expect: pass
# style: validation on a NumPy array of the sizes, then each size turned back into a Python int (exact at any size)
#        before multiplying; returns a Python int
import numpy as np


def count_params(vocab_size, d_model, n_layers, n_heads, n_kv_heads, head_dim, d_ff, tied_embeddings=False):
    sizes = np.array([vocab_size, d_model, n_layers, n_heads, n_kv_heads, head_dim, d_ff], dtype=np.int64)
    if (sizes <= 0).any():
        raise ValueError(f"every size must be positive, got {sizes.tolist()}")
    if n_heads % n_kv_heads:
        raise ValueError("n_heads must be a multiple of n_kv_heads")
    # np.int64 products wrap past 2**63; Python ints do not
    V, d, L, H, KV, hd, ff = (int(x) for x in sizes)
    attention = d * hd * (2 * H + 2 * KV)
    mlp = 3 * d * ff
    per_layer = attention + mlp + 2 * d
    embeddings = V * d if tied_embeddings else 2 * V * d
    return L * per_layer + embeddings + d


def weights_gib(n_params, bits):
    return n_params * bits / 8 / 1024**3
