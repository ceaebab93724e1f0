# attnprep: kvcache
# expect: fail matches-reference
# must-pass: per-token seed-table linear batch gqa-ratio bits integer bad-input max-tokens
# mistake: np.uint64 arithmetic throughout: the bit count wraps silently past 2**64 (n_tokens near 2**44 for an 8B
#          model), although the byte count would fit in an int64
import numpy as np


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bits=16, batch_size=1):
    if np.any(np.array([n_layers, n_kv_heads, head_dim, bits]) <= 0):
        raise ValueError("sizes and bits must be positive")
    if n_tokens < 0 or batch_size < 0:
        raise ValueError("n_tokens and batch_size must be non-negative")
    factors = np.array([2, n_layers, n_kv_heads, head_dim, n_tokens, batch_size, bits], dtype=np.uint64)
    total_bits = np.prod(factors, dtype=np.uint64)
    return (total_bits + np.uint64(7)) // np.uint64(8)


def max_cached_tokens(budget_bytes, n_layers, n_kv_heads, head_dim, bits=16):
    if budget_bytes < 0:
        raise ValueError("negative budget")
    per_token_bits = np.prod(np.array([2, n_layers, n_kv_heads, head_dim, bits], dtype=np.uint64), dtype=np.uint64)
    return np.uint64(budget_bytes) * np.uint64(8) // per_token_bits
