# attnprep: kvcache
# expect: pass
# style: a loop over layers and over K/V adding up bits; binary search for the token budget


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bits=16, batch_size=1):
    if n_layers < 1 or n_kv_heads < 1 or head_dim < 1 or bits < 1:
        raise ValueError("sizes and bits must be at least 1")
    if n_tokens < 0 or batch_size < 0:
        raise ValueError("negative n_tokens or batch_size")
    total_bits = 0
    for _layer in range(n_layers):
        for _tensor in ("k", "v"):
            total_bits += n_kv_heads * head_dim * n_tokens * batch_size * bits
    whole, rest = divmod(total_bits, 8)
    return whole + (1 if rest else 0)


def max_cached_tokens(budget_bytes, n_layers, n_kv_heads, head_dim, bits=16):
    if budget_bytes < 0:
        raise ValueError("negative budget")
    lo, hi = 0, 1
    while kv_cache_bytes(n_layers, n_kv_heads, head_dim, hi, bits) <= budget_bytes:
        hi *= 2
    # invariant: lo fits, hi does not
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if kv_cache_bytes(n_layers, n_kv_heads, head_dim, mid, bits) <= budget_bytes:
            lo = mid
        else:
            hi = mid
    return lo
