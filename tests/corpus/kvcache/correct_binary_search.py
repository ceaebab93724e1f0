# attnprep: kvcache
# expect: pass
# style: bytes per token as an exact ratio; max_cached_tokens by bisection on the token count


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bits=16, batch_size=1):
    if not (n_layers > 0 and n_kv_heads > 0 and head_dim > 0 and bits > 0):
        raise ValueError("n_layers, n_kv_heads, head_dim and bits must be > 0")
    if n_tokens < 0 or batch_size < 0:
        raise ValueError("n_tokens and batch_size must be >= 0")
    bits_per_token = 2 * n_layers * n_kv_heads * head_dim * bits
    num = bits_per_token * n_tokens * batch_size
    q, r = divmod(num, 8)
    return q + (r > 0)


def max_cached_tokens(budget_bytes, n_layers, n_kv_heads, head_dim, bits=16):
    if budget_bytes < 0:
        raise ValueError("budget_bytes must be >= 0")
    lo, hi = 0, 8 * budget_bytes + 1  # hi never fits: each token takes at least 2 bits
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if kv_cache_bytes(n_layers, n_kv_heads, head_dim, mid, bits) <= budget_bytes:
            lo = mid
        else:
            hi = mid - 1
    return lo
