"""Hidden checks for the `decode` exercise: one step of KV-cached decoding."""

import numpy as np

from attnprep.grading import (
    Fail,
    as_float,
    check_close,
    check_finite,
    check_shape,
    check_unchanged,
    fmt,
    invariant,
    shape_of,
    unpack,
)

FUNCTIONS = ("decode_step",)

# (B, d_model, n_heads, t): d_head, t and n_heads differ from one another wherever
# possible, so a cache laid out on the wrong axes cannot have the right shape by accident.
CONFIGS = [(2, 12, 3, 5), (1, 8, 2, 3), (3, 6, 6, 2), (2, 10, 1, 4), (1, 20, 4, 7)]


def _weights(rng, d_model, scale=1.0):
    s = scale / np.sqrt(d_model)
    return tuple(rng.normal(scale=s, size=(d_model, d_model)) for _ in range(4))


def _heads(a, n_heads):
    """(B, d_model) -> (B, n_heads, 1, d_head), the mha layout."""
    B, d_model = a.shape
    return a.reshape(B, n_heads, 1, d_model // n_heads)


def _random_cache(rng, B, n_heads, t, d_head, scale=1.0):
    return (rng.normal(scale=scale, size=(B, n_heads, t, d_head)),
            rng.normal(scale=scale, size=(B, n_heads, t, d_head)))


def _softmax(z):
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def _full_causal_mha(x, W_q, W_k, W_v, W_o, n_heads):
    """Causal multi-head attention over a whole sequence x (B, T, d_model)."""
    B, T, d_model = x.shape
    d_head = d_model // n_heads

    def split(a):
        return a.reshape(B, T, n_heads, d_head).transpose(0, 2, 1, 3)

    q, k, v = split(x @ W_q), split(x @ W_k), split(x @ W_v)
    scores = q @ k.swapaxes(-1, -2) / np.sqrt(d_head)
    scores = np.where(np.triu(np.ones((T, T), dtype=bool), k=1), -np.inf, scores)
    out = (_softmax(scores) @ v).transpose(0, 2, 1, 3).reshape(B, T, d_model)
    return out @ W_o


def _label(x_t, cache, n_heads):
    t = "cache=None" if cache is None else f"a cache of t={np.shape(cache[0])[2]} positions"
    return f"decode_step(x_t of shape {shape_of(x_t)}, {t}, n_heads={n_heads})"


def _step(cand, x_t, cache, W, n_heads):
    """One candidate call: (y_t, K, V, label), with y_t checked to be (B, d_model)."""
    label = _label(x_t, cache, n_heads)
    result = unpack(cand.decode_step(x_t, cache, *W, n_heads), 2, "decode_step")
    y = as_float(result[0], f"y_t of {label}")
    check_shape(y, x_t.shape, f"y_t of {label}")
    pair = unpack(result[1], 2, f"the cache returned by {label}")
    K = as_float(pair[0], f"the returned K of {label}")
    V = as_float(pair[1], f"the returned V of {label}")
    return y, K, V, label


def _check_cache_shape(K, V, want, label):
    for name, arr in (("K", K), ("V", V)):
        if arr.shape != want:
            hint = ""
            if arr.ndim == 4 and sorted(arr.shape) == sorted(want):
                hint = "; the axes are in another order: the cache is (B, n_heads, positions, d_head)"
            elif arr.ndim == 4 and arr.shape[:2] + arr.shape[3:] == want[:2] + want[3:]:
                hint = f"; it holds {arr.shape[2]} positions instead of {want[2]}"
            raise Fail(f"the returned {name} of {label} has shape {shape_of(arr)}, "
                       f"expected {shape_of(np.empty(want))}{hint}")


@invariant("cache-shape", "the returned K and V are (B, n_heads, t+1, d_head), growing by one position per step")
def cache_shape(cand, ref, rng):
    for B, d_model, n_heads, t in CONFIGS:
        d_head = d_model // n_heads
        W = _weights(rng, d_model)
        cache = None
        for step in range(2):  # from nothing, then feeding the returned cache back in
            x_t = rng.normal(size=(B, d_model))
            _, K, V, label = _step(cand, x_t, cache, W, n_heads)
            _check_cache_shape(K, V, (B, n_heads, step + 1, d_head), label)
            cache = (K, V)
        x_t = rng.normal(size=(B, d_model))
        cache = _random_cache(rng, B, n_heads, t, d_head)
        _, K, V, label = _step(cand, x_t, cache, W, n_heads)
        _check_cache_shape(K, V, (B, n_heads, t + 1, d_head), label)


@invariant("first-step", "with cache=None the token attends only to itself: y_t = (x_t @ W_v) @ W_o")
def first_step(cand, ref, rng):
    for B, d_model, n_heads, _ in CONFIGS:
        W = _weights(rng, d_model)
        x_t = rng.normal(size=(B, d_model))
        y, K, V, label = _step(cand, x_t, None, W, n_heads)
        check_finite(y, f"y_t of {label}", "a token with nothing in its past still attends to itself")
        check_close(y, (x_t @ W[2]) @ W[3], f"y_t of {label}",
                    context="with an empty cache the only key is the token itself, so its weight is 1 "
                            "and the output is its value projected through W_o")
        _check_cache_shape(K, V, (B, n_heads, 1, d_model // n_heads), label)


def _diagnose_old_positions(got, given, name, label):
    t = given.shape[2]
    if got.shape[2] == t + 1 and np.array_equal(got[:, :, 1:], given):
        raise Fail(f"the returned {name} of {label} holds the cache passed in at positions 1..{t} and the new "
                   f"token at position 0; the new position goes at the end (index {t})")
    old = got[:, :, :t]
    diff = np.argwhere(old != given)[0]
    idx = tuple(int(i) for i in diff)
    raise Fail(f"the returned {name} of {label}: entry {list(idx)} (an earlier position) is {fmt(old[idx])}, "
               f"but the cache passed in holds {fmt(given[idx])} there; cached keys and values must be "
               f"copied exactly, never recomputed")


@invariant("cache-content", "earlier positions are copied exactly; the new one is x_t @ W_k (W_v) split into heads")
def cache_content(cand, ref, rng):
    for B, d_model, n_heads, t in CONFIGS:
        d_head = d_model // n_heads
        W = _weights(rng, d_model)
        x_t = rng.normal(size=(B, d_model))
        cache = _random_cache(rng, B, n_heads, t, d_head)
        _, K, V, label = _step(cand, x_t, cache, W, n_heads)
        want = (B, n_heads, t + 1, d_head)
        for name, got, given, W_proj in (("K", K, cache[0], W[1]), ("V", V, cache[1], W[2])):
            check_shape(got, want, f"the returned {name} of {label}")
            if not np.array_equal(got[:, :, :t], given):
                _diagnose_old_positions(got, given, name, label)
            check_close(got[:, :, t], _heads(x_t @ W_proj, n_heads)[:, :, 0],
                        f"the new position of the returned {name} of {label}",
                        context=f"expected x_t @ W_{name.lower()} with head h holding features "
                                f"h*d_head:(h+1)*d_head, d_head={d_head}")


@invariant("matches-full", "stepping through T tokens reproduces causal multi-head attention on the whole sequence")
def matches_full(cand, ref, rng):
    # (B, T, d_model, n_heads, weight scale): the last case has sharp attention
    cases = [(2, 6, 12, 3, 1.0), (1, 5, 8, 2, 1.0), (3, 4, 6, 6, 1.0), (2, 5, 10, 1, 1.0),
             (1, 1, 8, 4, 1.0), (2, 7, 16, 4, 3.0)]
    for B, T, d_model, n_heads, scale in cases:
        W = _weights(rng, d_model, scale)
        x = rng.normal(size=(B, T, d_model))
        full = _full_causal_mha(x, *W, n_heads)
        cache = None
        for t in range(T):
            y, K, V, _ = _step(cand, x[:, t], cache, W, n_heads)
            check_close(y, full[:, t],
                        f"after feeding {t + 1} token(s) one at a time, y_t of token {t}",
                        context=f"B={B}, T={T}, d_model={d_model}, n_heads={n_heads}; expected row {t} "
                                f"of causal multi-head attention over the whole sequence")
            cache = (K, V)


@invariant("batch-independent", "each sequence of the batch is decoded as if it were alone")
def batch_independent(cand, ref, rng):
    for B, d_model, n_heads, t in ((3, 12, 3, 4), (2, 8, 1, 1)):
        d_head = d_model // n_heads
        W = _weights(rng, d_model)
        # Sequences at very different scales: their scores differ by orders of magnitude.
        scales = np.array([1.0, 30.0, 0.05])[:B]
        x_t = rng.normal(size=(B, d_model)) * scales[:, None]
        K0, V0 = _random_cache(rng, B, n_heads, t, d_head)
        K0, V0 = K0 * scales[:, None, None, None], V0 * scales[:, None, None, None]
        y, K, V, label = _step(cand, x_t, (K0, V0), W, n_heads)
        check_finite(y, f"y_t of {label}", "sequences at very different scales in one batch")
        for b in range(B):
            y1, K1, V1, _ = _step(cand, x_t[b:b + 1], (K0[b:b + 1], V0[b:b + 1]), W, n_heads)
            context = f"sequence {b} (scale {fmt(scales[b])}) decoded alone vs in a batch of {B}"
            check_close(y[b:b + 1], y1, f"y_t of sequence {b} in the batch", context=context)
            check_close(K[b:b + 1], K1, f"the returned K of sequence {b} in the batch", context=context)
            check_close(V[b:b + 1], V1, f"the returned V of sequence {b} in the batch", context=context)


@invariant("matches-reference", "y_t and the new cache match a reference to rtol 1e-6")
def matches_reference(cand, ref, rng):
    for B, d_model, n_heads, t in CONFIGS:
        d_head = d_model // n_heads
        for scale in (1.0, 5.0):
            W = _weights(rng, d_model, scale)
            x_t = rng.normal(size=(B, d_model))
            for cache in (None, _random_cache(rng, B, n_heads, t, d_head, scale)):
                y, K, V, label = _step(cand, x_t, cache, W, n_heads)
                y_ref, (K_ref, V_ref) = ref.decode_step(x_t, cache, *W, n_heads)
                check_close(y, y_ref, f"y_t of {label}")
                check_close(K, K_ref, f"the returned K of {label}")
                check_close(V, V_ref, f"the returned V of {label}")


@invariant("input-unchanged", "x_t, the four weight matrices and the incoming cache are not modified")
def input_unchanged(cand, ref, rng):
    names = ("x_t", "cache", "W_q", "W_k", "W_v", "W_o")
    for B, d_model, n_heads, t in CONFIGS[:3]:
        d_head = d_model // n_heads
        W = _weights(rng, d_model)
        x_t = rng.normal(size=(B, d_model))
        for cache in (None, _random_cache(rng, B, n_heads, t, d_head)):
            args = (x_t, cache, *W)
            for _ in range(2):  # a second call would see the damage of the first
                _, after, _ = cand.call_tracking_args("decode_step", *args, n_heads)
                for name, before, got in zip(names, args, after[:6], strict=True):
                    if name == "cache":
                        if cache is None:
                            continue
                        pair = got if isinstance(got, (tuple, list)) and len(got) == 2 else (None, None)
                        check_unchanged(cache[0], pair[0], f"the cached K (shape {shape_of(cache[0])})")
                        check_unchanged(cache[1], pair[1], f"the cached V (shape {shape_of(cache[1])})")
                    else:
                        check_unchanged(before, got, f"{name} of shape {shape_of(before)}")
