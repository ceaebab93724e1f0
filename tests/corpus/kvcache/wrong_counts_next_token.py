# attnprep: kvcache
# expect: fail linear per-token seed-table
# must-pass: bad-input batch bits gqa-ratio integer
# mistake: also counts the token being generated: sizes n_tokens + 1
# diagnosis: counts-next-token


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bits=16, batch_size=1):
    if min(n_layers, n_kv_heads, head_dim, bits) <= 0 or n_tokens < 0 or batch_size < 0:
        raise ValueError("bad size")
    # the new token's K and V are written to the cache too
    total_bits = 2 * n_layers * n_kv_heads * head_dim * (n_tokens + 1) * batch_size * bits
    return -(-total_bits // 8)


def max_cached_tokens(budget_bytes, n_layers, n_kv_heads, head_dim, bits=16):
    if budget_bytes < 0:
        raise ValueError("negative budget")
    return 8 * budget_bytes // (2 * n_layers * n_kv_heads * head_dim * bits)
