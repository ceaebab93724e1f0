# attnprep: kvcache
# expect: pass
# style: divmod for the partial byte; max_cached_tokens as a floor division in bits, written with divmod too
def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bits=16, batch_size=1):
    if min(n_layers, n_kv_heads, head_dim, bits) <= 0:
        raise ValueError("sizes and bits must be positive")
    if min(n_tokens, batch_size) < 0:
        raise ValueError("n_tokens and batch_size must be non-negative")
    whole, partial = divmod(2 * n_layers * n_kv_heads * head_dim * n_tokens * batch_size * bits, 8)
    return whole + (1 if partial else 0)


def max_cached_tokens(budget_bytes, n_layers, n_kv_heads, head_dim, bits=16):
    if budget_bytes < 0:
        raise ValueError("budget_bytes must be >= 0")
    if min(n_layers, n_kv_heads, head_dim, bits) <= 0:
        raise ValueError("sizes and bits must be positive")
    tokens, _ = divmod(budget_bytes * 8, 2 * n_layers * n_kv_heads * head_dim * bits)
    return tokens
