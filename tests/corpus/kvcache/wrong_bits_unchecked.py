# attnprep: kvcache
# expect: fail bad-input
# diagnosis: bits-unchecked
# mistake: validates the sizes and counts but forgets bits, so bits=0 or a negative width gives a 0 or negative size
def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bits=16, batch_size=1):
    if min(n_layers, n_kv_heads, head_dim) <= 0:
        raise ValueError("n_layers, n_kv_heads and head_dim must be positive")
    if n_tokens < 0 or batch_size < 0:
        raise ValueError("n_tokens and batch_size must be >= 0")
    return -(-2 * n_layers * n_kv_heads * head_dim * n_tokens * batch_size * bits // 8)


def max_cached_tokens(budget_bytes, n_layers, n_kv_heads, head_dim, bits=16):
    if budget_bytes < 0:
        raise ValueError("negative budget")
    return 8 * budget_bytes // (2 * n_layers * n_kv_heads * head_dim * bits)
