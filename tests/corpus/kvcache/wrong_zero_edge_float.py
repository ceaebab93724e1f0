# attnprep: kvcache
# expect: fail bad-input
# mistake: returns 0.0 early for an empty cache (zero tokens or an empty batch), a float, while every other size comes back as an int
def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bits=16, batch_size=1):
    if min(n_layers, n_kv_heads, head_dim, bits) <= 0 or n_tokens < 0 or batch_size < 0:
        raise ValueError("sizes must be positive, counts non-negative")
    if n_tokens == 0 or batch_size == 0:
        return 0.0
    return (2 * n_layers * n_kv_heads * head_dim * n_tokens * batch_size * bits + 7) // 8


def max_cached_tokens(budget_bytes, n_layers, n_kv_heads, head_dim, bits=16):
    if budget_bytes < 0:
        raise ValueError("negative budget")
    return 8 * budget_bytes // (2 * n_layers * n_kv_heads * head_dim * bits)
