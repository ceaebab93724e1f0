# attnprep: kvcache
# expect: fail max-tokens
# must-pass: integer
# diagnosis: max-tokens-kv-factor-missing
# mistake: kv_cache_bytes counts K and V, but max_cached_tokens divides by the bits of the keys alone (twice the tokens)
def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bits=16, batch_size=1):
    if min(n_layers, n_kv_heads, head_dim, bits) <= 0:
        raise ValueError("sizes and bits must be positive")
    if n_tokens < 0 or batch_size < 0:
        raise ValueError("n_tokens and batch_size must be >= 0")
    return -(-2 * n_layers * n_kv_heads * head_dim * n_tokens * batch_size * bits // 8)


def max_cached_tokens(budget_bytes, n_layers, n_kv_heads, head_dim, bits=16):
    if budget_bytes < 0:
        raise ValueError("negative budget")
    return 8 * budget_bytes // (n_layers * n_kv_heads * head_dim * bits)
