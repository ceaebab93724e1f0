# attnprep: kvcache
# expect: fail bits
# must-pass: integer linear gqa-ratio max-tokens bad-input
# diagnosis: rounds-each-sequence
# mistake: rounds one sequence's cache up to whole bytes, then multiplies by batch_size (rounds per sequence, not once)
def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bits=16, batch_size=1):
    if min(n_layers, n_kv_heads, head_dim, bits) <= 0 or n_tokens < 0 or batch_size < 0:
        raise ValueError("bad size")
    one_sequence = -(-2 * n_layers * n_kv_heads * head_dim * n_tokens * bits // 8)
    return one_sequence * batch_size


def max_cached_tokens(budget_bytes, n_layers, n_kv_heads, head_dim, bits=16):
    if budget_bytes < 0:
        raise ValueError("negative budget")
    return 8 * budget_bytes // (2 * n_layers * n_kv_heads * head_dim * bits)
