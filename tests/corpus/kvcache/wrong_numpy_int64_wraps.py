# attnprep: kvcache
# expect: fail matches-reference
# must-pass: per-token seed-table linear batch gqa-ratio bits integer bad-input max-tokens
# diagnosis: int64-overflow
# mistake: multiplies the sizes and bits in np.int64: the bit count wraps silently past 2**63 (n_tokens near 2**43
#          for an 8B model), although the byte count it returns would fit in an int64
import numpy as np


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bits=16, batch_size=1):
    sizes = np.array([n_layers, n_kv_heads, head_dim, bits], dtype=np.int64)
    if (sizes <= 0).any():
        raise ValueError("n_layers, n_kv_heads, head_dim and bits must be positive")
    if n_tokens < 0 or batch_size < 0:
        raise ValueError("n_tokens and batch_size must be non-negative")
    total_bits = np.int64(2) * np.prod(sizes) * np.int64(n_tokens) * np.int64(batch_size)
    return (total_bits + np.int64(7)) // np.int64(8)


def max_cached_tokens(budget_bytes, n_layers, n_kv_heads, head_dim, bits=16):
    if budget_bytes < 0:
        raise ValueError("budget_bytes must be non-negative")
    bits_per_token = np.int64(2) * np.int64(n_layers) * n_kv_heads * head_dim * bits
    return np.int64(budget_bytes) * np.int64(8) // bits_per_token
