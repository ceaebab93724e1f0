# attnprep: params
# expect: fail matches-reference
# must-pass: seed-config tied gqa integer weights-gib bad-input
# mistake: counts in np.int64, which wraps silently once the total passes 2**63 (a NumPy integer result is fine
#          only while the count fits in one)
import numpy as np


def count_params(vocab_size, d_model, n_layers, n_heads, n_kv_heads, head_dim, d_ff, tied_embeddings=False):
    sizes = np.array([vocab_size, d_model, n_layers, n_heads, n_kv_heads, head_dim, d_ff], dtype=np.int64)
    if (sizes <= 0).any():
        raise ValueError("sizes must be positive")
    if n_heads % n_kv_heads:
        raise ValueError("grouped-query attention needs n_heads % n_kv_heads == 0")
    V, d, L, H, KV, hd, ff = sizes
    per_layer = d * hd * (2 * H + 2 * KV) + 3 * d * ff + 2 * d
    return L * per_layer + V * d * np.int64(1 if tied_embeddings else 2) + d


def weights_gib(n_params, bits):
    return float(np.float64(n_params) * bits / 8 / 2.0 ** 30)
