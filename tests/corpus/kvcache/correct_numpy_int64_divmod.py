# attnprep: kvcache
# expect: pass
# style: np.int64 arithmetic that never forms the bit count: whole groups of 8 numbers are whole bytes (8 numbers of
#        b bits are b bytes), only the remainder is rounded; max_cached_tokens splits the budget the same way
import numpy as np


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bits=16, batch_size=1):
    if min(n_layers, n_kv_heads, head_dim, bits) <= 0:
        raise ValueError("n_layers, n_kv_heads, head_dim and bits must be positive")
    if n_tokens < 0 or batch_size < 0:
        raise ValueError("n_tokens and batch_size must be non-negative")
    numbers = np.int64(2) * n_layers * n_kv_heads * head_dim * n_tokens * batch_size
    groups, rest = divmod(numbers, np.int64(8))
    return groups * np.int64(bits) + (rest * np.int64(bits) + np.int64(7)) // np.int64(8)


def max_cached_tokens(budget_bytes, n_layers, n_kv_heads, head_dim, bits=16):
    if budget_bytes < 0:
        raise ValueError("budget_bytes must be non-negative")
    if min(n_layers, n_kv_heads, head_dim, bits) <= 0:
        raise ValueError("n_layers, n_kv_heads, head_dim and bits must be positive")
    bits_per_token = np.int64(2) * n_layers * n_kv_heads * head_dim * bits
    # floor(8 * budget / b) without 8 * budget: budget = q * b + r, so it is 8 * q + floor(8 * r / b)
    q, r = divmod(np.int64(budget_bytes), bits_per_token)
    return np.int64(8) * q + (np.int64(8) * r) // bits_per_token
