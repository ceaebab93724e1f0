# attnprep: params
# expect: pass
# style: per-component counts in a NumPy array of Python ints (dtype=object, so exact), np.dot with the layer counts;
#        weights_gib computed in float32 and returned as a NumPy float32
import numpy as np


def count_params(vocab_size, d_model, n_layers, n_heads, n_kv_heads, head_dim, d_ff, tied_embeddings=False):
    sizes = np.array([vocab_size, d_model, n_layers, n_heads, n_kv_heads, head_dim, d_ff])
    if np.any(sizes <= 0):
        raise ValueError(f"sizes must be positive: {sizes.tolist()}")
    if n_heads % n_kv_heads:
        raise ValueError("n_heads % n_kv_heads != 0")
    per_component = np.array([
        d_model * n_heads * head_dim,      # W_q
        d_model * n_kv_heads * head_dim,   # W_k
        d_model * n_kv_heads * head_dim,   # W_v
        n_heads * head_dim * d_model,      # W_o
        3 * d_model * d_ff,                # W_gate, W_up, W_down
        2 * d_model,                       # two RMSNorm scales
        vocab_size * d_model,              # embedding
        vocab_size * d_model,              # unembedding
        d_model,                           # final norm
    ], dtype=object)
    how_many = np.array([n_layers] * 6 + [1, 0 if tied_embeddings else 1, 1], dtype=object)
    return int(np.dot(per_component, how_many))


def weights_gib(n_params, bits):
    return np.float32(n_params) * np.float32(bits) / np.float32(8 * 2**30)
