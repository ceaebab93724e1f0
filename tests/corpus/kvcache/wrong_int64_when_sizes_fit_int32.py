# attnprep: kvcache
# expect: fail matches-reference
# must-pass: per-token seed-table linear batch gqa-ratio bits integer bad-input max-tokens
# mistake: takes a "fast" np.int64 path whenever every argument fits in an int32, and Python ints only for a huge
#          argument; but several ordinary arguments multiply past 2**63 bits (a long context in a big batch) and wrap
import numpy as np


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bits=16, batch_size=1):
    args = (n_layers, n_kv_heads, head_dim, n_tokens, bits, batch_size)
    if min(n_layers, n_kv_heads, head_dim, bits) <= 0 or n_tokens < 0 or batch_size < 0:
        raise ValueError(f"invalid sizes {args}")
    if max(args) <= np.iinfo(np.int32).max:
        # vectorised and fast: every factor fits in 32 bits, so surely the product fits in 64
        total_bits = np.prod(np.array((2, *args), dtype=np.int64))
        return int((total_bits + 7) // 8)
    total_bits = 2 * n_layers * n_kv_heads * head_dim * n_tokens * batch_size * bits
    return (total_bits + 7) // 8


def max_cached_tokens(budget_bytes, n_layers, n_kv_heads, head_dim, bits=16):
    if budget_bytes < 0:
        raise ValueError("negative budget")
    return (8 * budget_bytes) // (2 * n_layers * n_kv_heads * head_dim * bits)
