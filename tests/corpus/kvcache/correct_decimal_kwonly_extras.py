# attnprep: kvcache
# expect: pass
# style: decimal.Decimal with ROUND_CEILING / ROUND_FLOOR, keyword-only extras, an extra default argument
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal, localcontext


def _check(**sizes):
    for name, v in sizes.items():
        if v <= 0:
            raise ValueError(f"{name} must be > 0")


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bits=16, batch_size=1, *, kv_factor=2, **extra):
    _check(n_layers=n_layers, n_kv_heads=n_kv_heads, head_dim=head_dim, bits=bits)
    if n_tokens < 0 or batch_size < 0:
        raise ValueError("n_tokens and batch_size must be >= 0")
    with localcontext() as ctx:
        ctx.prec = 100
        total = Decimal(kv_factor) * n_layers * n_kv_heads * head_dim * n_tokens * batch_size * bits / 8
        return int(total.to_integral_value(rounding=ROUND_CEILING))


def max_cached_tokens(budget_bytes, n_layers, n_kv_heads, head_dim, bits=16, **extra):
    if budget_bytes < 0:
        raise ValueError("negative budget")
    _check(n_layers=n_layers, n_kv_heads=n_kv_heads, head_dim=head_dim, bits=bits)
    with localcontext() as ctx:
        ctx.prec = 100
        n = Decimal(budget_bytes) * 8 / (2 * n_layers * n_kv_heads * head_dim * bits)
        return int(n.to_integral_value(rounding=ROUND_FLOOR))
