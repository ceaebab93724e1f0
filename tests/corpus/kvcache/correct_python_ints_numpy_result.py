# attnprep: kvcache
# expect: pass
# style: exact Python-int arithmetic, the results handed back as np.int64 (as a serving stack's config code might);
#        the sizes are validated on a NumPy array
import numpy as np


def _check(**sizes):
    values = np.array(list(sizes.values()), dtype=np.int64)
    if (values <= 0).any():
        raise ValueError(f"sizes must be positive: {sizes}")


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bits=16, batch_size=1):
    _check(n_layers=n_layers, n_kv_heads=n_kv_heads, head_dim=head_dim, bits=bits)
    if n_tokens < 0 or batch_size < 0:
        raise ValueError("n_tokens and batch_size must be >= 0")
    # the bit count can pass 2**63 before it is divided by 8: keep it in Python ints
    n_bits = 2 * int(n_layers) * int(n_kv_heads) * int(head_dim) * int(n_tokens) * int(batch_size) * int(bits)
    return np.int64((n_bits + 7) // 8)


def max_cached_tokens(budget_bytes, n_layers, n_kv_heads, head_dim, bits=16):
    if budget_bytes < 0:
        raise ValueError("budget_bytes must be >= 0")
    _check(n_layers=n_layers, n_kv_heads=n_kv_heads, head_dim=head_dim, bits=bits)
    bits_per_token = 2 * int(n_layers) * int(n_kv_heads) * int(head_dim) * int(bits)
    return np.int64(8 * int(budget_bytes) // bits_per_token)
