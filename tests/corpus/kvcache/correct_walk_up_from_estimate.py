# attnprep: kvcache
# expect: pass
# style: estimate the token count from whole bytes per token, then walk it up or down to the exact answer
def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bits=16, batch_size=1):
    if n_layers <= 0 or n_kv_heads <= 0 or head_dim <= 0 or bits <= 0:
        raise ValueError("n_layers, n_kv_heads, head_dim and bits must be positive")
    if n_tokens < 0:
        raise ValueError("n_tokens must be >= 0")
    if batch_size < 0:
        raise ValueError("batch_size must be >= 0")
    elements = 2 * n_layers * n_kv_heads * head_dim  # K and V per token
    bits_total = elements * n_tokens * batch_size * bits
    whole_bytes = bits_total // 8
    if bits_total % 8:
        whole_bytes += 1
    return whole_bytes


def max_cached_tokens(budget_bytes, n_layers, n_kv_heads, head_dim, bits=16):
    if budget_bytes < 0:
        raise ValueError("budget must be >= 0")
    per_token_ceil = kv_cache_bytes(n_layers, n_kv_heads, head_dim, 1, bits)
    n = budget_bytes // per_token_ceil  # a lower bound: odd widths pack tighter than whole bytes per token
    step = max(1, n // 2)
    while step:
        while kv_cache_bytes(n_layers, n_kv_heads, head_dim, n + step, bits) <= budget_bytes:
            n += step
        step //= 2
    return n
