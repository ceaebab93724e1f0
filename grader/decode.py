"""Hidden checks for the `decode` exercise: one step of KV-cached decoding."""

import numpy as np

from attnprep import precision
from attnprep.grading import (
    Broke,
    Earlier,
    Fail,
    allclose,
    as_float,
    attempt,
    check_close,
    check_finite,
    check_shape,
    check_unchanged,
    copied_exactly,
    fmt,
    invariant,
    mistake,
    shape_of,
    unpack,
    worst_entry,
)
from attnprep.ladders import at_rung, cache_lengths, count, normal, peaked_rows

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


def _prefix_cache(x, W_k, W_v, n_heads):
    """The cache decoding x (B, t, d_model) token by token leaves: its keys and values split into heads."""
    B, t, d_model = x.shape
    d_head = d_model // n_heads

    def split(a):
        return a.reshape(B, t, n_heads, d_head).transpose(0, 2, 1, 3)

    return split(x @ W_k), split(x @ W_v)


def _full_rows(x, W_q, W_k, W_v, W_o, n_heads, rows):
    """Rows `rows` of causal multi-head attention over x (B, T, d_model), without the whole (T, T) matrix."""
    K, V = _prefix_cache(x, W_k, W_v, n_heads)
    B, T, d_model = x.shape
    d_head = d_model // n_heads
    out = []
    for t in rows:
        q = (x[:, t] @ W_q).reshape(B, n_heads, 1, d_head)
        w = _softmax(q @ K[:, :, :t + 1].swapaxes(-1, -2) / np.sqrt(d_head))
        out.append((w @ V[:, :, :t + 1]).reshape(B, d_model) @ W_o)
    return np.stack(out, axis=1)


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
    if got.shape[2] == t + 1 and copied_exactly(got[:, :, 1:], given):
        raise Fail(f"the returned {name} of {label} holds the cache passed in at positions 1..{t} and the new "
                   f"token at position 0; the new position goes at the end (index {t})")
    old = got[:, :, :t]
    diff = np.argwhere((old != given) & (old != precision.rounded(given)))[0]
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
            if not copied_exactly(got[:, :, :t], given):
                _diagnose_old_positions(got, given, name, label)
            check_close(got[:, :, t], _heads(x_t @ W_proj, n_heads)[:, :, 0],
                        f"the new position of the returned {name} of {label}",
                        context=f"expected x_t @ W_{name.lower()} with head h holding features "
                                f"h*d_head:(h+1)*d_head, d_head={d_head}")


@invariant("matches-full", "stepping through T tokens reproduces causal multi-head attention on the whole sequence, "
                            "also on from caches of 254 and 2,046 positions, and for two sequences decoded in turns")
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
    # Stepping on from long caches, across 256 and 2,048 positions: a fixed-size buffer, a window that keeps only
    # the latest positions or a position counter of a small integer type shows here. d_head = 6, not a power of 4:
    # scaling the caller's cache by 1 / sqrt(d_head) in place and back is then not exact, and input-unchanged
    # hears of it (every call's arguments are compared).
    for B, t0, steps, d_model, n_heads in ((2, 254, 4, 12, 2), (1, 2_046, 4, 18, 3)):
        W = _weights(rng, d_model, 2.0)
        x = normal(rng, (B, t0 + steps, d_model))
        full = _full_rows(x, *W, n_heads, range(t0, t0 + steps))
        cache = _prefix_cache(x[:, :t0], W[1], W[2], n_heads)
        for i in range(steps):
            with at_rung(f"step {i + 1} on from a cache of {count(t0)} positions"):
                y, K, V, label = _step(cand, x[:, t0 + i], cache, W, n_heads)
                what = (f"y_t of {label}, token {t0 + i} of the sequence (its first {t0} tokens cached up front, the "
                        "later ones fed back step by step)")
                check_close(y, full[:, i], what,
                            context=f"expected row {t0 + i} of causal multi-head attention over the whole sequence")
                cache = (K, V)
    # Two sequences of the same shapes decoded in turns, as a server does with two requests: each step must read
    # the cache it is given, not one remembered from the step before (which had the other sequence's history).
    B, T, d_model, n_heads = 2, 4, 12, 3
    W = _weights(rng, d_model, 1.0)
    xs = [rng.normal(size=(B, T, d_model)) for _ in range(2)]
    fulls = [_full_causal_mha(x, *W, n_heads) for x in xs]
    caches = [None, None]
    for t in range(T):
        for which in (0, 1):
            y, K, V, _ = _step(cand, xs[which][:, t], caches[which], W, n_heads)
            check_close(y, fulls[which][:, t], f"y_t of token {t} of sequence {'AB'[which]}, two sequences "
                        "(A and B) of the same shapes decoded in turns, each with its own cache",
                        context="expected that sequence's row of causal multi-head attention: a step must use only "
                                "the cache it is given, never state kept from an earlier call")
            caches[which] = (K, V)


@invariant("batch-independent", "each sequence of the batch is decoded as if it were alone")
def batch_independent(cand, ref, rng):
    for B, d_model, n_heads, t in ((3, 12, 3, 4), (2, 8, 1, 1)):
        d_head = d_model // n_heads
        W = _weights(rng, d_model)
        # Sequences at very different scales: their scores differ by orders of magnitude.
        scales = np.array([1.0, 100.0, 0.05])[:B]
        x_t = rng.normal(size=(B, d_model)) * scales[:, None]
        K0, V0 = _random_cache(rng, B, n_heads, t, d_head)
        K0, V0 = K0 * scales[:, None, None, None], V0 * scales[:, None, None, None]
        y, K, V, label = _step(cand, x_t, (K0, V0), W, n_heads)
        # Each sequence is held to its own result decoded alone: an overflow that the sequence also gives alone
        # (no max subtraction, say) is for stable; only what the batch changes is judged here (nan == nan).
        for b in range(B):
            y1, K1, V1, _ = _step(cand, x_t[b:b + 1], (K0[b:b + 1], V0[b:b + 1]), W, n_heads)
            context = f"sequence {b} (scale {fmt(scales[b])}) decoded alone vs in a batch of {B}"
            check_close(y[b:b + 1], y1, f"y_t of sequence {b} in the batch", context=context)
            check_close(K[b:b + 1], K1, f"the returned K of sequence {b} in the batch", context=context)
            check_close(V[b:b + 1], V1, f"the returned V of sequence {b} in the batch", context=context)


def _shiftable(rng, B, n_heads, d_head, t):
    """x_t, a cache and weights with scores of a few units, and the direction that shifts every key.

    Every feature of every query is about 2 (W_q = 2 * ones along x_t, plus 1% noise), so whatever
    way a solution splits the features into heads, each query row's features sum to about 2 * d_head.
    Adding the same number m to every feature of every key (the cached ones directly, the new one
    through W_k) then adds m * sum(q) / sqrt(d_head) to a whole row of scores, which softmax ignores.
    Returns (x_t, cache, W, lift) with lift(levels) -> (cache, W) shifting sequence b's scores by
    about levels[b].
    """
    d_model = n_heads * d_head
    x_t = rng.normal(size=(B, d_model))
    ones_along_x = np.linalg.pinv(x_t) @ np.ones(B)  # x_t[b] @ ones_along_x == 1 for every b
    W_q = rng.normal(scale=0.02 / np.sqrt(d_model), size=(d_model, d_model)) + np.outer(ones_along_x,
                                                                                        2.0 * np.ones(d_model))
    W_k, W_v, W_o = (rng.normal(scale=1 / np.sqrt(d_model), size=(d_model, d_model)) for _ in range(3))
    cache = _random_cache(rng, B, n_heads, t, d_head)

    def lift(levels):
        m = np.asarray(levels, dtype=np.float64) / (2.0 * np.sqrt(d_head))  # per feature, per sequence
        dW_k = np.outer(np.linalg.pinv(x_t) @ m, np.ones(d_model))  # x_t[b] @ dW_k == m[b] everywhere
        return (cache[0] + m[:, None, None, None], cache[1]), (W_q, W_k + dW_k, W_v, W_o)

    return x_t, cache, (W_q, W_k, W_v, W_o), lift


def _moderate_step(cand, x_t, cache, W, n_heads):
    """y_t at moderate scores, or None when the call does not even run or return a usable y_t there
    (that is another invariant's failure, not a numerical one)."""
    got = attempt(_step, cand, x_t, cache, W, n_heads)
    return None if isinstance(got, Broke) else got[0]


def _peaked_cache(rng, B, n_heads, d_head, t, magnitude):
    """x_t, weights and a cache whose scores q . K_j / sqrt(d_head) are `peaked_rows`: for every sequence and head
    the largest sits at a random cached position, rows centred at very different offsets. The new token's own key
    scores about 0 (W_k small), so where a row sits far below 0 its own position takes the weight."""
    d_model = n_heads * d_head
    x_t = normal(rng, (B, d_model))
    W_q, W_v, W_o = (normal(rng, (d_model, d_model), 1 / np.sqrt(d_model)) for _ in range(3))
    W_k = normal(rng, (d_model, d_model), 0.01 / np.sqrt(d_model))
    q = _heads(x_t @ W_q, n_heads)[:, :, 0]  # (B, H, d_head)
    scores = peaked_rows(rng, (B, n_heads, t), magnitude)
    along = q / np.sum(q * q, axis=-1, keepdims=True)  # q . along = 1
    noise = rng.normal(size=(B, n_heads, t, d_head))
    noise -= np.sum(noise * q[:, :, None], axis=-1, keepdims=True) * along[:, :, None]  # orthogonal to q
    K = scores[..., None] * np.sqrt(d_head) * along[:, :, None] + noise
    return x_t, (K, normal(rng, (B, n_heads, t, d_head))), (W_q, W_k, W_v, W_o), scores


def _peaked_stable(cand, ref, rng, B, n_heads, d_head, t):
    """Fail when the peaked cache at 1e4 loses the reference's answer that the same construction gives at 1."""
    x_t, cache, W, _ = _peaked_cache(rng, B, n_heads, d_head, t, 1.0)
    moderate = attempt(_step, cand, x_t, cache, W, n_heads)
    if isinstance(moderate, Broke) or not allclose(moderate[0], ref.decode_step(x_t, cache, *W, n_heads)[0],
                                                      rtol=1e-6, atol=1e-9):
        return  # wrong at scores of a few units: the other invariants say why
    x_t, cache, W, scores = _peaked_cache(rng, B, n_heads, d_head, t, 1e4)
    y, _, _, label = _step(cand, x_t, cache, W, n_heads)
    want = ref.decode_step(x_t, cache, *W, n_heads)[0]
    idx = worst_entry(y, want, 1e-6, 1e-9)
    if idx is None:
        return
    b = idx[0]
    rows = ", ".join(f"head {h}: largest {fmt(scores[b, h].max())} at cached position {int(np.argmax(scores[b, h]))}"
                     for h in range(n_heads))
    what = "overflow or 0/0" if not np.isfinite(y[idx]) else f"expected {fmt(want[idx])}"
    raise Fail(f"y_t of {label}: entry {list(idx)} is {fmt(y[idx])}, {what}. The cached keys of sequence {b} score "
               f"up to 1e4 with spreads of thousands, each head's largest at a random position ({rows}; the new "
               f"token's own score is about 0); the same construction at scores of a few units comes out right. "
               f"Subtract each query row's own maximum over all t+1 scores (axis=-1, keepdims=True), not the new "
               f"token's score, the first key's or a mean")


@invariant("stable", "scores near +1e4 or -1e4, and sequences at very different scales in one batch: no overflow, "
                     "no 0/0")
def stable(cand, ref, rng):
    B, n_heads, d_head, t = 2, 3, 4, 5
    x_t, cache, W, lift = _shiftable(rng, B, n_heads, d_head, t)
    y_mod = _moderate_step(cand, x_t, cache, W, n_heads)
    if y_mod is None:
        return
    row_max = "subtract each query row's maximum score (axis=-1, keepdims=True) before np.exp"
    cases = [((1e4, 1e4), "every score near +1e4: exp overflows; " + row_max),
             ((-1e4, -1e4), "every score, the new token's own included, near -1e4: exp underflows to 0/0; " + row_max),
             ((1e4, 0.0), "sequence 0 with scores near 1e4 and sequence 1 with scores of a few units in one batch: "
                          "subtract each query row's own maximum (axis=-1, keepdims=True), not one maximum of the "
                          "whole batch")]
    # Each head's maximum at a random cached position, rows at very different offsets, short and long caches.
    for t_peak in (7, 300):
        _peaked_stable(cand, ref, rng, B, n_heads, d_head, t_peak)
    finite = np.isfinite(y_mod)
    for levels, name in cases:
        big_cache, big_W = lift(levels)
        y, _, _, label = _step(cand, x_t, big_cache, big_W, n_heads)
        bad = ~np.isfinite(y) & finite
        if bad.any():
            idx = tuple(int(i) for i in np.argwhere(bad)[0])
            raise Fail(f"y_t of {label}: entry {list(idx)} is {fmt(y[idx])} (overflow or 0/0), though it is "
                       f"{fmt(y_mod[idx])} for the same x_t and values with scores of a few units; {name}")
        # The same lift at a few units: a candidate whose y_t already moves there does not attend the way the
        # lift assumes (a query taken through W_k, say, moves with the keys); matches-full and matches-reference
        # say what is wrong, and only finiteness is judged here.
        small = np.sign(levels) * 3.0
        small_cache, small_W = lift(small)
        y_small = _moderate_step(cand, x_t, small_cache, small_W, n_heads)
        if y_small is None or not allclose(np.where(finite, y_small, 0.0), np.where(finite, y_mod, 0.0),
                                              rtol=1e-3, atol=1e-6):
            continue  # loose on purpose: lost digits (float32, say) are judged below, not excused here
        idx = worst_entry(np.where(finite, y, 0.0), np.where(finite, y_mod, 0.0), 1e-6, 1e-9)
        if idx is not None:
            raise Fail(f"y_t of {label}: entry {list(idx)} is {fmt(y[idx])}, but {fmt(y_mod[idx])} for the same "
                       f"x_t and values with scores of a few units. The large case adds the same amount to every "
                       f"key, so the same number to all the scores of a query row, which the softmax ignores: y_t "
                       f"must not change. Precision is lost at large scores ({name.split(':')[0]}): keep float64 "
                       f"and {row_max}, with no clipping")


@invariant("matches-reference", "y_t and the new cache match a reference to rtol 1e-6, for caches of 0 to 12,289 "
                                "positions (scores near 1e4 at 7 and 12,289)")
def matches_reference(cand, ref, rng):
    for B, d_model, n_heads, t in CONFIGS:
        d_head = d_model // n_heads
        for scale in (1.0, 5.0):
            W = _weights(rng, d_model, scale)
            x_t = rng.normal(size=(B, d_model))
            for cache in (None, _random_cache(rng, B, n_heads, t, d_head, scale)):
                _check_reference(cand, ref, x_t, cache, W, n_heads)
    # The magnitude rung of `stable`: each head's largest score at a random cached position, up to 1e4.
    with at_rung("scores near 1e4, each head's largest at a random cached position"):
        x_t, cache, W, _ = _peaked_cache(rng, 2, 3, 4, 7, 1e4)
        _check_reference(cand, ref, x_t, cache, W, 3)
    # The cache-length ladder: past 256 and 2,048 positions, at which fixed buffers and windows are often sized.
    for rung in cache_lengths():
        if rung.value < 100:
            continue  # the short caches are the configurations above
        with at_rung(rung.label):
            B, d_model, n_heads = 2, 12, 3
            W = _weights(rng, d_model, 3.0)
            cache = tuple(normal(rng, (B, n_heads, rung.value, d_model // n_heads), 2.0) for _ in range(2))
            _check_reference(cand, ref, normal(rng, (B, d_model)), cache, W, n_heads)
    # One cache past 10,000 positions with scores near 1e4, the largest at a random position and the rest
    # spread over thousands: code that walks a long cache in chunks must carry one maximum across them (or rescale).
    with at_rung(f"a cache of {LONG_CACHE:,} positions, scores near 1e4, its largest at a random position"):
        x_t, cache, W, _ = _peaked_cache(rng, 1, 1, 4, LONG_CACHE, 1e4)  # one sequence and head: loops stay quick
        _check_reference(cand, ref, x_t, cache, W, 1)


LONG_CACHE = 12_289  # past 10,000 and 12,288 (3 x 4,096): no chunk of 1,024 or 4,096 ends on the last position


def _check_reference(cand, ref, x_t, cache, W, n_heads):
    y, K, V, label = _step(cand, x_t, cache, W, n_heads)
    y_ref, (K_ref, V_ref) = ref.decode_step(x_t, cache, *W, n_heads)
    check_close(y, y_ref, f"y_t of {label}")
    check_close(K, K_ref, f"the returned K of {label}")
    check_close(V, V_ref, f"the returned V of {label}")


@invariant("input-unchanged", "x_t, the four weight matrices and the incoming cache are not modified, in any "
                            "call (caches of 2,050 positions included), and a returned cache stays as it was "
                            "returned when the next call runs")
def input_unchanged(cand, ref, rng):
    names = ("x_t", "cache", "W_q", "W_k", "W_v", "W_o")
    for B, d_model, n_heads, t in (*CONFIGS[:3], (1, 8, 2, 300)):  # and a cache past 256 positions
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
    _results_kept(cand, rng)


def _results_kept(cand, rng):
    """A returned cache is the caller's: decoding another sequence, or a second beam from the same cache, must not
    change it. The calls are made one after another before any result is read back (Candidate.in_a_row), and the
    cache in question must equal the same call's without the later one: a decode_step that keeps one buffer of its
    own and returns views into it gives the first caller the second's values."""
    B, d_model, n_heads, t = 1, 12, 3, 4
    W = _weights(rng, d_model)
    x0, cache0 = rng.normal(size=(B, d_model)), _random_cache(rng, B, n_heads, t, d_model // n_heads)
    first = ("decode_step", (x0, cache0, *W, n_heads), {})
    other = _random_cache(rng, B, n_heads, t, d_model // n_heads)
    call = _label(x0, cache0, n_heads)
    for later, situation in ((("decode_step", (rng.normal(size=(B, d_model)), other, *W, n_heads), {}),
                              "a second sequence was decoded after it"),
                             (("decode_step", (rng.normal(size=(B, d_model)), cache0, *W, n_heads), {}),
                              "a second beam was decoded from the same cache after it")):
        _same_cache(cand.in_a_row([first, later]), cand.in_a_row([first]), 0, call, situation)
    # Two beams from the cache the first call returned, fed back as it came back (a view, if it is one): a buffer
    # that grows in place behind its views writes both beams' new position into one slot.
    beams = [("decode_step", (rng.normal(size=(B, d_model)), Earlier(0, (1,)), *W, n_heads), {}) for _ in range(2)]
    _same_cache(cand.in_a_row([first, *beams]), cand.in_a_row([first, beams[0]]), 1,
                f"decode_step on the cache it had just returned ({t + 1} positions)",
                "a second beam was decoded from that same cache after it")


def _same_cache(together, alone, n, call, situation):
    """Fail when the cache of call n read after later calls differs from the one read without them."""
    if not (isinstance(together, list) and isinstance(alone, list) and len(together) > n < len(alone)):
        return
    label = f"the cache returned by {call}"
    got = unpack(unpack(together[n], 2, "decode_step")[1], 2, label)
    want = unpack(unpack(alone[n], 2, "decode_step")[1], 2, label)
    for name, g, w in (("K", got[0], want[0]), ("V", got[1], want[1])):
        g, w = as_float(g, f"the {name} returned by {call}"), as_float(w, f"the {name} returned by {call}")
        if g.shape == w.shape and not np.array_equal(g, w, equal_nan=True):
            i = tuple(int(v) for v in np.argwhere(~((g == w) | (np.isnan(g) & np.isnan(w))))[0])
            raise Fail(f"the {name} returned by {call} changed when {situation}: entry {list(i)} is {fmt(g[i])} "
                       f"once the later call has run, {fmt(w[i])} without it. The caller keeps every cache you "
                       "return (one per sequence, one per beam): return new arrays (np.concatenate), not views "
                       "into a buffer you write again")


# -- known mistakes, recognised by behaviour on these probes --------------------------

def probes(rng):
    # A cache of t=5 positions, 3 heads of d_head=4: d_head, t, n_heads and d_model all differ.
    W = _weights(rng, 12, 2.0)
    yield "decode_step", (rng.normal(size=(2, 12)), _random_cache(rng, 2, 3, 5, 4, 2.0), *W, 3), {}
    # The first step, with nothing cached.
    W = _weights(rng, 8, 2.0)
    yield "decode_step", (rng.normal(size=(2, 8)), None, *W, 2), {}
    # Sequences at very different scales in one batch: scores from about 0 to well past 1e3.
    B, d_model, n_heads, t = 3, 12, 3, 4
    scales = np.array([1.0, 30.0, 0.05])
    K0, V0 = _random_cache(rng, B, n_heads, t, d_model // n_heads)
    cache = (K0 * scales[:, None, None, None], V0 * scales[:, None, None, None])
    yield "decode_step", (rng.normal(size=(B, d_model)) * scales[:, None], cache, *_weights(rng, d_model, 2.0),
                          n_heads), {}
    # Integer weight matrices: an in-place float update of a weight (W_q /= ...) cannot be stored in them.
    W = tuple(rng.integers(-2, 3, size=(8, 8)) for _ in range(4))
    yield "decode_step", (rng.normal(size=(1, 8)), _random_cache(rng, 1, 2, 3, 4), *W, 2), {}
    yield "decode_step", _rounding_probe(rng), {}
    for t in (256, 512, 1024, 2048):
        yield "decode_step", _long_cache_probe(rng, t), {}
    # Which score the softmax is shifted by (exp of a raw score of 800 overflows, of 600 not). First two sequences:
    # the new token's own score far below the cached ones, and far above them (so only a shift by the minimum
    # overflows there); then the new token's score near 800 with the cached ones.
    yield "decode_step", _shift_probe(rng, [(-280.0, (500.0, 600.0)), (300.0, (-500.0, -450.0))]), {}
    yield "decode_step", _shift_probe(rng, [(800.0, (760.0, 820.0))]), {}


def _shift_probe(rng, rows):
    """One head of d_head = 4; in sequence b the new token scores rows[b][0], five cached keys uniformly within
    rows[b][1]."""
    B, d, t = len(rows), 4, 5
    x_t = np.zeros((B, d))
    x_t[:, 0] = 1.0
    x_t[:, 1] = [own / 10.0 for own, _ in rows]
    W_q, W_k = np.zeros((d, d)), np.zeros((d, d))
    W_q[0, 0] = 20.0
    W_k[1, 0] = 1.0  # k[0] = own / 10, and a score is 20 * k[0] / sqrt(4)
    K = np.zeros((B, 1, t, d))
    for b, (_, cached) in enumerate(rows):
        K[b, 0, :, 0] = rng.uniform(*cached, size=t) / 10.0
    W_v = rng.normal(size=(d, d))
    return x_t, (K, rng.normal(size=(B, 1, t, d))), W_q, W_k, W_v, np.eye(d), 1


# The float32 probes: float32 keeps 24 bits, so 1 + delta with delta of 1e-7 to 1e-6 is rounded by up to 6e-8, and
# 2**20 * (1 + delta) - 2**20 * 1 turns that into an error of up to 1/16 on a value of 0.1 to 1. Products by a power of
# two and the difference of two close numbers are exact in float32 too, in any order of summation, so every float32
# implementation gets the same wrong value, far beyond any tolerance, while the rest of its rounding stays near 1e-7.
_TWO_20 = 2.0**20


def _rounding_probe(rng):
    """x_t = [1 + delta, 1, 0, 0] and W_q such that q = 2**20 * delta: float32 projections show at once.

    16 sequences (a batch of 64 features, which the float32 variant below is keyed to), one head, 3 cached
    positions whose keys make the weights depend on q; the new key and value are 0 and W_o is the identity.
    """
    B, d_model, t = 16, 4, 3
    x_t = np.zeros((B, d_model))
    x_t[:, 0] = 1.0 + rng.uniform(1e-7, 1e-6, size=B)
    x_t[:, 1] = 1.0
    W_q = np.zeros((d_model, d_model))
    W_q[0, 0], W_q[1, 0] = _TWO_20, -_TWO_20
    K = np.zeros((B, 1, t, d_model))
    K[..., 0] = rng.uniform(2.0, 6.0, size=(B, 1, t))
    V = rng.uniform(0.5, 2.0, size=(B, 1, t, d_model))
    zero = np.zeros((d_model, d_model))
    return x_t, (K, V), W_q, zero, zero.copy(), np.eye(d_model), 1


def _long_cache_probe(rng, t):
    """A cache of t positions (a usual buffer or window length: one more token no longer fits), scores float32 rounds.

    One head of d_head = 4 (so that scaling by 1 / sqrt(d_head) is exact), q = [2**20, -2**20, 0, 0]. Eight live
    cached keys [1 + delta, 1, 0, 0] score 2**20 * delta / 2 (0.05 to 0.5, rounded by up to 0.03 in float32); every
    other cached key is [0, 1, 0, 0], which scores -524,288 and gets a weight of exactly 0 in any precision. The new
    key [1, 1, 0, 0] scores 0.
    """
    d = 4
    x_t = np.zeros((1, d))
    x_t[0, 0] = 1.0
    W_q, W_k, W_v = np.zeros((d, d)), np.zeros((d, d)), np.zeros((d, d))
    W_q[0, :2] = _TWO_20, -_TWO_20
    W_k[0, :2] = 1.0
    W_v[0] = 0.5, -0.5, 1.0, 0.25
    K = np.zeros((1, 1, t, d))
    K[..., 1] = 1.0
    live = rng.choice(t, size=8, replace=False)
    K[0, 0, live, 0] = 1.0 + rng.uniform(1e-7, 1e-6, size=8)
    V = rng.normal(size=(1, 1, t, d))
    V[0, 0, live] = rng.uniform(0.5, 2.0, size=(8, d))
    return x_t, (K, V), W_q, W_k, W_v, np.eye(d), 1


def _variant(x_t, cache, W_q, W_k, W_v, W_o, n_heads, *, divide_by=None, heads=None, append=None, start=None,
             keys=None, mask=None, subtract=None, norm_axis=-1, merge=None):
    """decode_step with one known mistake switched on (never writing into the caller's cache)."""
    B, d_model = x_t.shape
    d_head = d_model // n_heads
    split = heads or (lambda a: a.reshape(B, n_heads, 1, d_head))
    q, k, v = split(x_t @ W_q), split(x_t @ W_k), split(x_t @ W_v)
    if cache is None and start is not None:
        cache = start(B, n_heads, d_head)
    if cache is None:
        K, V = k, v
    else:
        append = append or (lambda old, new: np.concatenate([old, new], axis=2))
        K, V = append(cache[0], k), append(cache[1], v)
    if keys is not None:
        K, V = keys(K, k), keys(V, v)
    s = q @ K.swapaxes(-1, -2) / (np.sqrt(d_head) if divide_by is None else divide_by(d_model, d_head))
    if mask is not None:
        s = np.where(mask(s.shape[-1]), -np.inf, s)
    e = np.exp(s - (s.max(axis=-1, keepdims=True) if subtract is None else subtract(s)))
    w = e / e.sum(axis=norm_axis, keepdims=True)
    out = (w @ V)[:, :, 0, :]  # (B, n_heads, d_head)
    if heads is not None or merge == "interleaved":  # merged back as (B, d_head, n_heads)
        out = out.transpose(0, 2, 1)
    return out.reshape(B, d_model) @ W_o, (K, V)


@mistake("no-scale", "divide the scores q . k by sqrt(d_head) before the softmax")
def _no_scale(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
    return _variant(x_t, cache, W_q, W_k, W_v, W_o, n_heads, divide_by=lambda D, dh: 1.0)


@mistake("scale-by-d-model", "divide the scores by sqrt(d_head), the width of one head, not sqrt(d_model)")
def _scale_by_d_model(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
    return _variant(x_t, cache, W_q, W_k, W_v, W_o, n_heads, divide_by=lambda D, dh: np.sqrt(D))


@mistake("scale-by-d-k", "divide the scores by the square root of d_head, not by d_head itself")
def _scale_by_d_k(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
    return _variant(x_t, cache, W_q, W_k, W_v, W_o, n_heads, divide_by=lambda D, dh: float(dh))


@mistake("no-max-subtraction", "subtract each row's maximum from the scores before np.exp: scores past about 709 "
                               "overflow")
def _no_max_subtraction(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
    return _variant(x_t, cache, W_q, W_k, W_v, W_o, n_heads, subtract=lambda s: 0.0)


@mistake("global-max", "subtract the maximum of each query's own scores (axis=-1, keepdims=True), not one maximum "
                       "of the whole batch")
def _global_max(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
    return _variant(x_t, cache, W_q, W_k, W_v, W_o, n_heads, subtract=lambda s: s.max())


@mistake("mask-includes-diagonal", "do not mask the new token's own position: it attends to every cached position "
                                   "and to itself")
def _mask_self(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
    return _variant(x_t, cache, W_q, W_k, W_v, W_o, n_heads, mask=lambda n: np.arange(n) == n - 1)


@mistake("mask-from-position-0", "the new token is the last position, so every cached key is in its past: use no "
                                 "mask here, not a causal mask built as if the query were position 0")
def _mask_row_zero(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
    return _variant(x_t, cache, W_q, W_k, W_v, W_o, n_heads, mask=lambda n: np.arange(n) > 0)


@mistake("heads-interleaved", "split into heads with reshape(B, n_heads, d_head): head h holds the contiguous "
                              "features h*d_head:(h+1)*d_head, not every n_heads-th feature")
def _interleaved_heads(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
    B, d_model = x_t.shape
    return _variant(x_t, cache, W_q, W_k, W_v, W_o, n_heads,
                    heads=lambda a: a.reshape(B, d_model // n_heads, n_heads).transpose(0, 2, 1)[:, :, None, :])


@mistake("new-position-prepended", "append the new key and value after the cached ones "
                                   "(np.concatenate([cache_K, k], axis=2)), not in front of them")
def _prepend(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
    return _variant(x_t, cache, W_q, W_k, W_v, W_o, n_heads,
                    append=lambda old, new: np.concatenate([new, old], axis=2))


@mistake("cache-grows-wrong-axis", "append the new key and value along axis 2, the positions of "
                                   "(B, n_heads, t, d_head), not along the heads (axis 1)")
def _concat_head_axis(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
    return _variant(x_t, cache, W_q, W_k, W_v, W_o, n_heads,
                    append=lambda old, new: np.concatenate([old, new], axis=1))


@mistake("keys-stored-transposed", "keep the cached keys as (B, n_heads, t, d_head), like the values, and transpose "
                                   "only when computing the scores")
def _pretransposed_keys(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
    B, d_model = x_t.shape
    d_head = d_model // n_heads
    q = (x_t @ W_q).reshape(B, n_heads, 1, d_head)
    kT = (x_t @ W_k).reshape(B, n_heads, d_head, 1)
    v = (x_t @ W_v).reshape(B, n_heads, 1, d_head)
    KT, V = (kT, v) if cache is None else (np.concatenate([cache[0], kT], axis=-1),
                                           np.concatenate([cache[1], v], axis=2))
    s = q @ KT / np.sqrt(d_head)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return ((e / e.sum(axis=-1, keepdims=True)) @ V).reshape(B, d_model) @ W_o, (KT, V)


@mistake("cache-rebuilt-from-current-token", "copy the cached keys and values of earlier positions as they are "
                                             "and append only the new token's; x_t alone cannot recompute them")
def _keys_from_current_token(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
    return _variant(x_t, cache, W_q, W_k, W_v, W_o, n_heads,
                    keys=lambda full, new: np.repeat(new, full.shape[2], axis=2))


@mistake("zero-initial-cache", "with cache=None start from an empty cache: the first token's K and V hold just "
                               "that token, not a zero position before it")
def _zero_initial_cache(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
    return _variant(x_t, cache, W_q, W_k, W_v, W_o, n_heads,
                    start=lambda B, H, dh: (np.zeros((B, H, 1, dh)), np.zeros((B, H, 1, dh))))


@mistake("cached-keys-prescaled", "keep the cached keys as x @ W_k and divide the scores by sqrt(d_head) instead; "
                                  "scaling the keys changes the cache handed back (and K *= ... writes into the "
                                  "caller's arrays)")
def _cache_prescaled(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
    d_head = x_t.shape[1] // n_heads
    y, (K, V) = _variant(x_t, cache, W_q, W_k, W_v, W_o, n_heads)
    if cache is not None:
        cache[0][...] = cache[0] / np.sqrt(d_head)  # the K_old *= scale of the mistake, into the caller's cache
    return y, (K / np.sqrt(d_head), V)


@mistake("cached-keys-prescaled", _cache_prescaled.mistake_message)
def _new_key_prescaled(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
    # The new key enters the cache already divided by sqrt(d_head), and the scores are then left unscaled: the
    # cached keys, taken to be scaled already, are not touched.
    d_head = x_t.shape[1] // n_heads
    return _variant(x_t, cache, W_q, W_k / np.sqrt(d_head), W_v, W_o, n_heads, divide_by=lambda d_model, d_head: 1.0)


@mistake("softmax-wrong-axis", "normalise the weights over the keys (axis=-1), not over the single query row "
                               "(axis=-2), which makes every weight 1")
def _softmax_wrong_axis(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
    return _variant(x_t, cache, W_q, W_k, W_v, W_o, n_heads, norm_axis=-2)


@mistake("weights-scaled-in-place", "leave the weight matrices as passed: W_q /= ... writes into the caller's array, "
                                    "so every later call sees smaller weights; divide the scores (or a new array) "
                                    "instead")
def _wq_scaled_in_place(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
    # The caller's own matrix, as the mistake has it: an integer one cannot take the float result, and a float
    # one shows the change after the call (which also keeps a file that merely refuses integers from matching).
    W_q = W_q if isinstance(W_q, np.ndarray) else np.array(W_q)
    W_q /= np.sqrt(x_t.shape[1] // n_heads)
    return _variant(x_t, cache, W_q, W_k, W_v, W_o, n_heads, divide_by=lambda D, dh: 1.0)


@mistake("merge-interleaved", "merge the heads back with reshape(B, d_model): head h's output goes to features "
                              "h*d_head:(h+1)*d_head, and a transpose to (d_head, n_heads) first interleaves them")
def _merge_interleaved(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
    return _variant(x_t, cache, W_q, W_k, W_v, W_o, n_heads, merge="interleaved")


@mistake("query-from-w-k", "project the query with W_q: x_t @ W_k makes every score a key dotted with a key")
def _query_from_w_k(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
    return _variant(x_t, cache, W_k, W_k, W_v, W_o, n_heads)


@mistake("cache-returned-v-k", "return the cache as (K, V), keys first: the next step reads cache[0] as the keys")
def _returns_v_k(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
    y, (K, V) = _variant(x_t, cache, W_q, W_k, W_v, W_o, n_heads)
    return y, (V, K)


@mistake("scale-precedence", "divide the scores by (d_model // n_heads) ** 0.5: d_model // n_heads ** 0.5 takes the "
                             "power first and floor-divides d_model by sqrt(n_heads)")
def _scale_precedence(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
    return _variant(x_t, cache, W_q, W_k, W_v, W_o, n_heads, divide_by=lambda D, dh: D // (D // dh) ** 0.5)


def _buffered(size):
    def decode_step(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
        B, d_model = x_t.shape
        d_head = d_model // n_heads
        t = 0 if cache is None else cache[0].shape[2]
        K, V = np.zeros((B, n_heads, size, d_head)), np.zeros((B, n_heads, size, d_head))
        if cache is not None:
            K[:, :, :t], V[:, :, :t] = cache  # a longer cache does not fit: ValueError
        k, v = (x_t @ W_k).reshape(B, n_heads, d_head), (x_t @ W_v).reshape(B, n_heads, d_head)
        K[:, :, t], V[:, :, t] = k, v  # a full buffer has no position t: IndexError
        return _variant(x_t, (K[:, :, :t], V[:, :, :t]), W_q, W_k, W_v, W_o, n_heads)
    return mistake("fixed-size-buffer", "grow the cache with np.concatenate along the positions: a buffer "
                                        "preallocated for a maximum length breaks once the context is longer")(
        decode_step)


# A preallocated buffer of a usual length: the long-cache probe of exactly that length fills it (IndexError), the
# longer ones do not fit (ValueError), which tells it from code that fails on every cache.
_buffer_256, _buffer_512, _buffer_1024 = (_buffered(n) for n in (256, 512, 1024))


def _windowed(size):
    def decode_step(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
        return _variant(x_t, cache, W_q, W_k, W_v, W_o, n_heads,
                        append=lambda old, new: np.concatenate([old, new], axis=2)[:, :, -size:])
    return mistake("cache-window", "keep every position in the cache: cutting it to the latest positions (a fixed "
                                   "context length) drops the oldest tokens from attention")(decode_step)


# The usual context lengths; the long-cache probe tells each of them from the reference.
_window_256, _window_512, _window_1024, _window_2048 = (_windowed(n) for n in (256, 512, 1024, 2048))


# Two variants of one mistake. float32 projections at any cache length (keyed to the rounding probe's batch of 64
# features: on the smaller probes float32's rounding is noise near the tolerance, which would make the verdict a
# matter of chance), and float32 attention over a long cache only (1,024 positions and more).
@mistake("float32-arithmetic", "compute in float64, the cache too: float32 keeps about seven digits, which "
                               "cancelling terms in the projections or scores turn into visible errors")
def _float32_projections(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
    if np.size(x_t) >= 64:
        x_t, W_q, W_k, W_v, W_o = (np.asarray(a, dtype=np.float32) for a in (x_t, W_q, W_k, W_v, W_o))
    y, (K, V) = _variant(x_t, cache, W_q, W_k, W_v, W_o, n_heads)
    return y.astype(np.float64), (K, V)


@mistake("float32-arithmetic", _float32_projections.mistake_message)
def _float32_long_cache(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
    if cache is None or cache[0].shape[2] < 1024:
        return _variant(x_t, cache, W_q, W_k, W_v, W_o, n_heads)
    B, d_model = x_t.shape
    d_head = d_model // n_heads
    q, k, v = ((np.asarray(x_t, dtype=np.float64) @ W).reshape(B, n_heads, 1, d_head) for W in (W_q, W_k, W_v))
    K = np.concatenate([cache[0], k], axis=2).astype(np.float32)
    V = np.concatenate([cache[1], v], axis=2).astype(np.float32)
    s = q.astype(np.float32) @ K.swapaxes(-1, -2) / np.float32(np.sqrt(d_head))
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    out = (e / e.sum(axis=-1, keepdims=True) @ V).reshape(B, d_model)
    return (out @ W_o).astype(np.float64), (K, V)



@mistake("shift-by-own-score", "subtract each row's maximum before np.exp, not the new token's own score: a cached "
                               "key scoring about 709 above it overflows")
def _shift_by_own_score(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
    return _variant(x_t, cache, W_q, W_k, W_v, W_o, n_heads, subtract=lambda s: s[..., -1:])


@mistake("shift-by-cached-max", "subtract each row's maximum over all t+1 keys, the new token's own score "
                                "included: a new token scoring about 709 above its cache overflows")
def _shift_by_cached_max(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
    return _variant(x_t, cache, W_q, W_k, W_v, W_o, n_heads, subtract=lambda s: s[..., :-1].max(
        axis=-1, keepdims=True) if s.shape[-1] > 1 else 0.0)


@mistake("max-shared-by-heads", "subtract each head's own maximum (axis=-1 only): one maximum over every head of "
                                "a sequence leaves a head scoring about 745 below it with 0/0")
def _max_shared_by_heads(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
    return _variant(x_t, cache, W_q, W_k, W_v, W_o, n_heads, subtract=lambda s: s.max(axis=(1, -1), keepdims=True))


@mistake("shift-by-min", "subtract each row's maximum before np.exp, not its minimum: a key scoring about 709 above "
                         "the lowest overflows")
def _shift_by_min(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
    return _variant(x_t, cache, W_q, W_k, W_v, W_o, n_heads, subtract=lambda s: s.min(axis=-1, keepdims=True))
