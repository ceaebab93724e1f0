# attnprep: kvcache
# expect: fail bad-input
# must-pass: per-token seed-table matches-reference linear batch gqa-ratio bits integer max-tokens
# diagnosis: rejects-empty-batch
# mistake: validates batch_size like the sizes (batch_size < 1 raises), but a batch of zero sequences is allowed and caches nothing
def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bits=16, batch_size=1):
    for name, v in (("n_layers", n_layers), ("n_kv_heads", n_kv_heads), ("head_dim", head_dim), ("bits", bits),
                    ("batch_size", batch_size)):
        if v < 1:
            raise ValueError(f"{name} must be >= 1")
    if n_tokens < 0:
        raise ValueError("n_tokens must be >= 0")
    return -(-2 * n_layers * n_kv_heads * head_dim * n_tokens * batch_size * bits // 8)


def max_cached_tokens(budget_bytes, n_layers, n_kv_heads, head_dim, bits=16):
    if budget_bytes < 0:
        raise ValueError("negative budget")
    return 8 * budget_bytes // (2 * n_layers * n_kv_heads * head_dim * bits)
