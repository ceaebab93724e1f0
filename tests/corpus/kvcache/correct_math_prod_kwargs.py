# attnprep: kvcache
# expect: pass
# style: math.prod over a tuple of sizes, ceiling by (x + 7) // 8, keyword-only internals, **kwargs accepted
import math


def _check(**sizes):
    for name, value in sizes.items():
        if value <= 0:
            raise ValueError(f"{name}={value} must be > 0")


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bits=16, batch_size=1, **unused):
    _check(n_layers=n_layers, n_kv_heads=n_kv_heads, head_dim=head_dim, bits=bits)
    if min(n_tokens, batch_size) < 0:
        raise ValueError("n_tokens and batch_size cannot be negative")
    total_bits = math.prod((2, n_layers, n_kv_heads, head_dim, n_tokens, batch_size, bits))
    return (total_bits + 7) // 8


def max_cached_tokens(budget_bytes, n_layers, n_kv_heads, head_dim, bits=16, **unused):
    if budget_bytes < 0:
        raise ValueError("budget_bytes cannot be negative")
    _check(n_layers=n_layers, n_kv_heads=n_kv_heads, head_dim=head_dim, bits=bits)
    bits_per_token = math.prod((2, n_layers, n_kv_heads, head_dim, bits))
    n, _ = divmod(budget_bytes * 8, bits_per_token)
    return n
