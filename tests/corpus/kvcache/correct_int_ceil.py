# attnprep: kvcache
# expect: pass
# style: pure integer arithmetic, ceiling as -(-x // 8), one validation helper


def _positive(*values):
    if any(v <= 0 for v in values):
        raise ValueError("n_layers, n_kv_heads, head_dim and bits must be positive")


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bits=16, batch_size=1):
    _positive(n_layers, n_kv_heads, head_dim, bits)
    if n_tokens < 0 or batch_size < 0:
        raise ValueError("n_tokens and batch_size must be >= 0")
    total_bits = 2 * n_layers * n_kv_heads * head_dim * n_tokens * batch_size * bits
    return -(-total_bits // 8)


def max_cached_tokens(budget_bytes, n_layers, n_kv_heads, head_dim, bits=16):
    if budget_bytes < 0:
        raise ValueError("negative budget")
    _positive(n_layers, n_kv_heads, head_dim, bits)
    return 8 * budget_bytes // (2 * n_layers * n_kv_heads * head_dim * bits)
