# attnprep: kvcache
# expect: fail bad-input
# mistake: rejects zero tokens and a zero batch too (<= 0 everywhere), though an empty cache is valid
# diagnosis: rejects-zero


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bits=16, batch_size=1):
    if min(n_layers, n_kv_heads, head_dim, n_tokens, bits, batch_size) <= 0:
        raise ValueError("all sizes must be positive")
    total_bits = 2 * n_layers * n_kv_heads * head_dim * n_tokens * batch_size * bits
    return -(-total_bits // 8)


def max_cached_tokens(budget_bytes, n_layers, n_kv_heads, head_dim, bits=16):
    if budget_bytes < 0:
        raise ValueError("negative budget")
    return 8 * budget_bytes // (2 * n_layers * n_kv_heads * head_dim * bits)
