# attnprep: kvcache
# expect: fail integer
# diagnosis: max-tokens-float-floor
# mistake: max_cached_tokens floors a float quotient: the right type, but wrong once 8 x budget passes 2**53
import math


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bits=16, batch_size=1):
    if min(n_layers, n_kv_heads, head_dim, bits) <= 0:
        raise ValueError("sizes and bits must be positive")
    if n_tokens < 0 or batch_size < 0:
        raise ValueError("n_tokens and batch_size must be >= 0")
    return -(-2 * n_layers * n_kv_heads * head_dim * n_tokens * batch_size * bits // 8)


def max_cached_tokens(budget_bytes, n_layers, n_kv_heads, head_dim, bits=16):
    if budget_bytes < 0:
        raise ValueError("negative budget")
    bytes_per_token = 2 * n_layers * n_kv_heads * head_dim * bits / 8
    return math.floor(budget_bytes / bytes_per_token)
