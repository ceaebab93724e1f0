# attnprep: kvcache
# expect: fail bits
# must-pass: integer
# mistake: rounds the byte count down with // 8, losing the partial byte of odd bit widths
# diagnosis: rounds-down
# not-diagnosis: rounds-nearest


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bits=16, batch_size=1):
    if min(n_layers, n_kv_heads, head_dim, bits) <= 0 or n_tokens < 0 or batch_size < 0:
        raise ValueError("bad size")
    total_bits = 2 * n_layers * n_kv_heads * head_dim * n_tokens * batch_size * bits
    return total_bits // 8


def max_cached_tokens(budget_bytes, n_layers, n_kv_heads, head_dim, bits=16):
    if budget_bytes < 0:
        raise ValueError("negative budget")
    return 8 * budget_bytes // (2 * n_layers * n_kv_heads * head_dim * bits)
