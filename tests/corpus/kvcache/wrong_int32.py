# attnprep: kvcache
# expect: fail integer seed-table batch
# mistake: multiplies the sizes in np.int32, which wraps past 2**31 at long contexts
# diagnosis: int32-overflow
import numpy as np


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bits=16, batch_size=1):
    if min(n_layers, n_kv_heads, head_dim, bits) <= 0 or n_tokens < 0 or batch_size < 0:
        raise ValueError("bad size")
    # sizes kept as 32-bit integers, like the int32 config tensors of a serving stack
    total_bits = np.int32(2)
    for size in (n_layers, n_kv_heads, head_dim, n_tokens, batch_size, bits):
        total_bits = total_bits * np.int32(size)
    return -(-total_bits // 8)


def max_cached_tokens(budget_bytes, n_layers, n_kv_heads, head_dim, bits=16):
    if budget_bytes < 0:
        raise ValueError("negative budget")
    return 8 * budget_bytes // (2 * n_layers * n_kv_heads * head_dim * bits)
