# attnprep: kvcache
# expect: fail max-tokens
# must-pass: per-token seed-table linear batch gqa-ratio bits integer bad-input
# diagnosis: max-tokens-ignores-bits
# mistake: max_cached_tokens hard-codes 2 bytes per number and ignores its bits argument
def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bits=16, batch_size=1):
    if min(n_layers, n_kv_heads, head_dim, bits) <= 0 or n_tokens < 0 or batch_size < 0:
        raise ValueError("bad size")
    return -(-2 * n_layers * n_kv_heads * head_dim * n_tokens * batch_size * bits // 8)


def max_cached_tokens(budget_bytes, n_layers, n_kv_heads, head_dim, bits=16):
    if budget_bytes < 0:
        raise ValueError("negative budget")
    return budget_bytes // (2 * n_layers * n_kv_heads * head_dim * 2)
