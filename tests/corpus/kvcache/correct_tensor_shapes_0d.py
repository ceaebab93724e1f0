# attnprep: kvcache
# expect: pass
# style: per-layer K and V tensor shapes multiplied out, bits summed in a generator, 0-d int64 array returned
import numpy as np


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bits=16, batch_size=1):
    if not all(x > 0 for x in (n_layers, n_kv_heads, head_dim, bits)):
        raise ValueError("non-positive size")
    if n_tokens < 0 or batch_size < 0:
        raise ValueError("negative count")
    k_shape = (batch_size, n_kv_heads, n_tokens, head_dim)  # one layer's K cache
    per_tensor = 1
    for s in k_shape:
        per_tensor *= s
    total_bits = sum(per_tensor * bits for _layer in range(n_layers) for _kv in "KV")
    q, r = divmod(total_bits, 8)
    return np.array(q + bool(r))


def max_cached_tokens(budget_bytes, n_layers, n_kv_heads, head_dim, bits=16):
    if budget_bytes < 0:
        raise ValueError("negative budget")
    if not all(x > 0 for x in (n_layers, n_kv_heads, head_dim, bits)):
        raise ValueError("non-positive size")
    bits_per_token = 2 * n_layers * n_kv_heads * head_dim * bits
    return np.array(budget_bytes * 8 // bits_per_token)
