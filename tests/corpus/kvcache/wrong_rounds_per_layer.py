# attnprep: kvcache
# expect: fail bits
# must-pass: integer linear batch gqa-ratio bad-input
# diagnosis: rounds-each-layer
# mistake: sizes one layer's K and V in whole bytes (rounded up), then multiplies by n_layers
def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bits=16, batch_size=1):
    if min(n_layers, n_kv_heads, head_dim, bits) <= 0 or n_tokens < 0 or batch_size < 0:
        raise ValueError("bad size")
    per_layer = -(-2 * n_kv_heads * head_dim * n_tokens * batch_size * bits // 8)
    return n_layers * per_layer


def max_cached_tokens(budget_bytes, n_layers, n_kv_heads, head_dim, bits=16):
    if budget_bytes < 0:
        raise ValueError("negative budget")
    return 8 * budget_bytes // (2 * n_layers * n_kv_heads * head_dim * bits)
