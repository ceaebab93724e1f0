# attnprep: kvcache
# expect: fail matches-reference
# must-pass: per-token seed-table linear batch gqa-ratio bits integer bad-input max-tokens
# diagnosis: max-tokens-int64-overflow
# mistake: max_cached_tokens turns the budget into bits in np.int64: 8 * budget_bytes wraps past 2**63 (a budget of
#          2**60 bytes, an exabyte), although the budget and the token count both fit in an int64
import numpy as np


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bits=16, batch_size=1):
    if min(n_layers, n_kv_heads, head_dim, bits) <= 0 or n_tokens < 0 or batch_size < 0:
        raise ValueError("invalid size")
    total_bits = 2 * n_layers * n_kv_heads * head_dim * n_tokens * batch_size * bits
    return -(-total_bits // 8)


def max_cached_tokens(budget_bytes, n_layers, n_kv_heads, head_dim, bits=16):
    if budget_bytes < 0:
        raise ValueError("negative budget")
    if min(n_layers, n_kv_heads, head_dim, bits) <= 0:
        raise ValueError("invalid size")
    budget_bits = np.int64(budget_bytes) * 8
    bits_per_token = np.int64(2 * n_layers * n_kv_heads * head_dim * bits)
    return int(budget_bits // bits_per_token)
