# attnprep: kvcache
# expect: pass
# style: np.prod over an object array (Python ints, no overflow), max tokens by galloping over its own sizes
import numpy as np


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bits=16, batch_size=1):
    dims = np.array([n_layers, n_kv_heads, head_dim, bits], dtype=object)
    if np.any(dims <= 0):
        raise ValueError("n_layers, n_kv_heads, head_dim and bits must be positive")
    if n_tokens < 0 or batch_size < 0:
        raise ValueError("n_tokens and batch_size must be >= 0")
    total_bits = np.prod(np.array([2, n_tokens, batch_size], dtype=object)) * np.prod(dims)
    return (total_bits + 7) // 8


def max_cached_tokens(budget_bytes, n_layers, n_kv_heads, head_dim, bits=16):
    if budget_bytes < 0:
        raise ValueError("budget must be >= 0")

    def size(n):
        return kv_cache_bytes(n_layers, n_kv_heads, head_dim, n, bits=bits)

    if size(1) > budget_bytes:
        return 0
    lo, hi = 1, 2
    while size(hi) <= budget_bytes:
        lo, hi = hi, hi * 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if size(mid) <= budget_bytes:
            lo = mid
        else:
            hi = mid
    return lo
