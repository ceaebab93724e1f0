"""Hidden checks for the `gqa` exercise."""

import numpy as np

from attnprep.grading import (
    Broke,
    Fail,
    allclose,
    as_float,
    attempt,
    check_close,
    check_finite,
    check_shape,
    check_unchanged,
    divisor_unreadable,
    expect_raises,
    fmt,
    invariant,
    is_expected,
    isclose,
    mistake,
    shape_of,
    softmax_divisor,
    worst_entry,
)
from attnprep.ladders import (
    ZERO_SCORES,
    Stopwatch,
    check_close_fast,
    expect_refused,
    fill_before_scale,
    low_shifts,
    meanwhile,
    peak_text,
    peaked_self_attention,
    uniform_score_shift,
    up_to_long,
    with_zero_rows,
)

FUNCTIONS = ("gqa_attention",)

# (B, T, d_model, n_heads, n_kv_heads, hd): hd is never d_model // n_heads, T != d_model,
# batch 1 and length 1 included.
CONFIGS = [(2, 5, 12, 4, 2, 5), (1, 7, 8, 6, 3, 3), (3, 4, 16, 8, 1, 2), (2, 1, 6, 2, 2, 4),
           (1, 6, 10, 4, 4, 4), (2, 3, 9, 6, 2, 7)]


def _inputs(rng, B, T, d_model, H, H_kv, hd, scale=1.0):
    x = rng.normal(size=(B, T, d_model))
    w = scale / np.sqrt(d_model)
    W_q = rng.normal(scale=w, size=(d_model, H * hd))
    W_k = rng.normal(scale=w, size=(d_model, H_kv * hd))
    W_v = rng.normal(scale=w, size=(d_model, H_kv * hd))
    W_o = rng.normal(scale=1 / np.sqrt(H * hd), size=(H * hd, d_model))
    return x, W_q, W_k, W_v, W_o


def _attend(x, W_q, W_k, W_v, W_o, H, H_kv, kv_of=None, scale=None, causal=True, split_transpose=True,
            merge_transpose=True, subtract="row", mask_by_product=False):
    """Causal attention where query head h reads KV head kv_of[h]: the checks' own model, to build variants.
    `mask_by_product`: the future is zeroed after np.exp (exp(s) * tril), where an overflow there is inf * 0."""
    B, T, _ = x.shape
    hd = W_q.shape[1] // H
    kv_of = np.arange(H) // (H // H_kv) if kv_of is None else np.asarray(kv_of)
    scale = 1 / np.sqrt(hd) if scale is None else scale

    def split(a, n):  # (B, T, n*hd) -> (B, n, T, hd), or the scrambled reshape without the transpose
        return a.reshape(B, T, n, hd).transpose(0, 2, 1, 3) if split_transpose else a.reshape(B, n, T, hd)

    q = split(x @ W_q, H)
    k = split(x @ W_k, H_kv)[:, kv_of]
    v = split(x @ W_v, H_kv)[:, kv_of]
    s = q @ k.transpose(0, 1, 3, 2) * scale
    before_mask = s.max(axis=-1, keepdims=True)  # the max over every key, the masked future included
    unmasked = s
    if causal:
        s = np.where(np.triu(np.ones((T, T), dtype=bool), 1), -np.inf, s)
    shift = {"row": lambda: s.max(axis=-1, keepdims=True), "none": lambda: 0.0, "global": lambda: s.max(),
             "before-mask": lambda: before_mask, "first-key": lambda: s[..., :1]}[subtract]()
    w = np.exp(unmasked - shift) * np.tril(np.ones((T, T))) if mask_by_product else np.exp(s - shift)
    w /= w.sum(axis=-1, keepdims=True)
    out = w @ v
    out = out.transpose(0, 2, 1, 3) if merge_transpose else out
    return out.reshape(B, T, H * hd) @ W_o


def _label(x, W_q, W_k, H, H_kv):
    return (f"gqa_attention(x {shape_of(x)}, W_q {shape_of(W_q)}, W_k/W_v {shape_of(W_k)}, ..., "
            f"n_heads={H}, n_kv_heads={H_kv})")


def _run(cand, args, H, H_kv, finite=True, exact_shape=True):
    x, W_q, W_k, W_v, W_o = args
    label = _label(x, W_q, W_k, H, H_kv)
    y = cand.gqa_attention(x, W_q, W_k, W_v, W_o, H, H_kv)
    if isinstance(y, tuple) and any(isinstance(item, np.ndarray) for item in y):
        # A tuple of B arrays of shape (T, d_model) is an array-like y; (y, weights) is not.
        shapes = {np.shape(item) for item in y}
        if len(y) != x.shape[0] or shapes != {x.shape[1:]}:
            raise Fail(f"{label} returned a tuple of {len(y)} items; it returns only y, of shape (B, T, d_model)")
    y = as_float(y, label)
    if exact_shape:
        check_shape(y, x.shape, label)
    if finite:
        # x and the weights are moderate here (see `stable` for large scores): a nan is a 0/0 in a softmax.
        check_finite(y, label, "at moderate scores; is a whole row of scores masked? The diagonal must stay "
                               "unmasked: position 0 may attend to itself")
    return y, label


def _close(a, b, equal_nan=False):
    return a.shape == b.shape and bool(allclose(a, b, rtol=1e-6, atol=1e-9, equal_nan=equal_nan))


@invariant("shape", "y has shape (B, T, d_model)")
def shape(cand, ref, rng):
    for B, T, d_model, H, H_kv, hd in CONFIGS:
        # finite=False: a nan in y (a fully masked row, say) is no shape problem; the other checks report it
        _run(cand, _inputs(rng, B, T, d_model, H, H_kv, hd), H, H_kv, finite=False)


@invariant("equals-mha", "with n_kv_heads == n_heads it is standard causal multi-head attention")
def equals_mha(cand, ref, rng):
    for B, T, d_model, H, hd in ((2, 5, 12, 3, 5), (1, 6, 8, 2, 4), (2, 4, 6, 1, 6), (3, 3, 10, 4, 2)):
        args = _inputs(rng, B, T, d_model, H, H, hd)
        got = attempt(_run, cand, args, H, H, finite=False)
        if isinstance(got, Broke):
            # a y of the wrong shape (or a crash) that an ordinary GQA call of the same shapes gives too is for
            # `shape`; one only with n_kv_heads == n_heads is this check's to report
            ordinary = _inputs(rng, B, T, d_model, 2, 1, hd)
            if isinstance(attempt(_run, cand, ordinary, 2, 1, finite=False), Broke):
                continue
        y, label = _run(cand, args, H, H)
        check_close(y, _attend(*args, H, H), label,
                    context=f"with n_kv_heads == n_heads = {H} this is causal multi-head attention with "
                            f"head size hd = W_q.shape[1] // n_heads = {hd}")


def _value_probe(rng, T, H, H_kv, hd):
    """One sequence whose values are constant within each KV head: feature 0 of x is 1 and only it reaches v.

    KV head j holds the same value vector c[j] at every position, so whatever the weights of a query head (scaled
    or not, masked or not, summing to one or not), its output is a multiple of c[j] for the KV head j it read.
    W_o is [I | 0]: y shows the merged heads as they are, slot h (features h*hd:(h+1)*hd) holding query head h.
    """
    d_model = H * hd + 2
    x, W_q, W_k, _, _ = _inputs(rng, 1, T, d_model, H, H_kv, hd, scale=2.0)
    x[..., 0] = 1.0
    c = rng.normal(size=(H_kv, hd)) + 3.0 * np.eye(H_kv, hd)  # no two value vectors parallel
    W_v = np.zeros((d_model, H_kv * hd))
    W_v[0] = c.ravel()
    W_o = np.eye(H * hd, d_model)
    return (x, W_q, W_k, W_v, W_o), c


def _heads_read(y, c, H, hd):
    """{query head h: the KV head j whose values slot h of y is a positive multiple of at every position}.

    A slot that is such a multiple at no position, at only some of them, or of different KV heads at different
    positions (heads or positions mixed by a layout mistake, which the other checks report) is left out.
    """
    found = {}
    for h in range(H):
        seen = set()
        for t in range(y.shape[1]):
            out = y[0, t, h * hd:(h + 1) * hd]
            if not np.isfinite(out).all():
                continue  # a 0/0 row (nothing left to attend to) is for the other checks
            norm = np.linalg.norm(out)
            if norm < 1e-12:
                seen.add(None)
                continue
            cos = c @ out / (np.linalg.norm(c, axis=1) * norm)
            j = int(np.argmax(cos))
            seen.add(j if cos[j] > 1 - 1e-9 else None)
        if len(seen) == 1 and None not in seen:
            found[h] = seen.pop()
    return found


@invariant("mqa", "with n_kv_heads = 1 every query head shares the single K/V head")
def mqa(cand, ref, rng):
    # 1. Values constant within the single KV head: every query head's output is a multiple of that one vector.
    for T, H, hd in ((5, 4, 3), (6, 3, 2)):
        args, c = _value_probe(rng, T, H, 1, hd)
        got = attempt(_run, cand, args, H, 1, finite=False)
        if isinstance(got, Broke):
            continue  # a crash or a y of the wrong shape is for `shape` to report
        y, label = got
        found = _heads_read(y, c, H, hd)
        for h in range(H):
            out = y[0, :, h * hd:(h + 1) * hd]
            if h not in found and np.isfinite(out).all() and (np.linalg.norm(out, axis=-1) > 1e-12).all():
                t = int(np.argmax([abs(np.linalg.norm(o) - abs(c[0] @ o) / np.linalg.norm(c[0])) for o in out]))
                raise Fail(f"{label} with W_v giving the single KV head the same value vector at every position "
                           f"and W_o = [I | 0] (y shows the merged heads): query head {h} at position {t} gave "
                           f"{np.array2string(out[t], precision=4)}, which is not a multiple of that vector "
                           f"{np.array2string(c[0], precision=4)}: every query head must read the single K/V head")
    # 2. Sharing one KV head is giving every query head its own copy of it: the candidate's MQA must equal its own
    # MHA on copies, judged where that MHA is right (the reference), so an MHA-only mistake is left to equals-mha.
    for B, T, d_model, H, hd in ((2, 6, 10, 4, 3), (1, 5, 8, 8, 2), (2, 4, 6, 3, 5)):
        x, W_q, W_k, W_v, W_o = _inputs(rng, B, T, d_model, H, 1, hd)
        copies = (x, W_q, np.tile(W_k, (1, H)), np.tile(W_v, (1, H)), W_o)
        got = attempt(_run, cand, copies, H, H)
        if isinstance(got, Broke) or not _close(got[0], _attend(*copies, H, H)):
            continue  # wrong with n_kv_heads == n_heads already: for equals-mha and the other checks
        y, label = _run(cand, (x, W_q, W_k, W_v, W_o), H, 1)
        check_close(y, got[0], label,
                    context=f"compared with the same call given n_kv_heads = n_heads = {H} and W_k, W_v repeated "
                            f"{H} times (every query head its own copy of the single K/V head), which it gets "
                            "right: with n_kv_heads = 1 all query heads must share that one K/V head")


@invariant("group-mapping", "query head h reads KV head h // (n_heads // n_kv_heads)")
def group_mapping(cand, ref, rng):
    # Values constant within each KV head reveal which KV head each query head read, whatever its weights.
    for T, H, H_kv, hd in ((5, 6, 2, 2), (5, 4, 2, 3), (7, 8, 4, 2), (5, 6, 3, 2)):
        args, c = _value_probe(rng, T, H, H_kv, hd)
        got = attempt(_run, cand, args, H, H_kv, finite=False)
        if isinstance(got, Broke):
            continue  # a crash or a y of the wrong shape is for `shape` to report
        y, label = got
        group = H // H_kv
        found = _heads_read(y, c, H, hd)
        wrong = [h for h in range(H) if h in found and found[h] != h // group]
        if not wrong:
            continue
        h = wrong[0]
        why = (f"query head {h} read KV head {found[h]}, expected KV head {h} // (n_heads // n_kv_heads) = "
               f"{h} // {group} = {h // group}")
        if all(found.get(i, i % H_kv) == i % H_kv for i in range(H)):
            why += (f": heads come in consecutive groups of {group}, so heads 0..{group - 1} share KV head 0; "
                    "h % n_kv_heads (np.tile) cycles through the KV heads, np.repeat(k, g, axis=1) keeps each "
                    "group together")
        raise Fail(f"{label} with W_v giving each KV head j one value vector c[j] at every position and W_o = "
                   f"[I | 0] (y shows the merged heads): slot {h} of y is a multiple of c[{found[h]}] at every "
                   f"position, so {why}")


# (T, d_model, n_heads, n_kv_heads, hd) of one sequence, d_model >= T + 2: sqrt(hd) and the wrong divisors
# sqrt(d_model), sqrt(d_model // n_heads), hd, 1, sqrt(n_heads * hd) and sqrt(n_kv_heads * hd) all differ in each.
# T and n_heads share no factor, so a merge that forgets the transpose still puts whole rows of weights (of other
# positions) where y reads them, and its scale can still be judged.
SCALE_CASES = [(5, 8, 4, 2, 5), (5, 12, 6, 2, 4), (7, 10, 4, 2, 7)]


def _weights_read_back(cand, T, d_model, H, H_kv, hd, rng):
    """The attention weights of one sequence whose per-head scores are known whatever the head layout.

    x holds a one-hot position marker in features 0..T-1 and two numbers a_t, b_t in features T and T+1. W_q and
    W_k repeat one column, so every feature of q at position t is a_t and every feature of k is b_t: each head's
    raw score q_t . k_s is hd * a_t * b_s, however the features are split and shared. a_t is the same at every
    position, so even queries taken from the wrong position see the same scores. With W_v repeating the marker
    column of key j, every value is 1 at key j and 0 elsewhere, and W_o averages the first hd features of the merged
    heads: y[0, t, :] is the weight of key j in row t. One call per key gives the (T, T) weights.
    """
    a, b = np.full(T, rng.choice([-1.0, 1.0])), rng.normal(size=T)
    g = np.sqrt(3.0 * np.sqrt(hd) / (hd * np.abs(np.outer(a, b)).max()))  # scores / sqrt(hd) reach about 3
    x = np.zeros((1, T, d_model))
    x[0, :, :T] = np.eye(T)
    x[0, :, T], x[0, :, T + 1] = g * a, g * b
    W_q = np.repeat(np.eye(d_model)[:, T:T + 1], H * hd, axis=1)
    W_k = np.repeat(np.eye(d_model)[:, T + 1:T + 2], H_kv * hd, axis=1)
    W_o = np.zeros((H * hd, d_model))
    W_o[:hd] = 1.0 / hd
    label = _label(x, W_q, W_k, H, H_kv)
    w = np.empty((T, T))
    for j in range(T):
        W_v = np.repeat(np.eye(d_model)[:, j:j + 1], H_kv * hd, axis=1)
        y, _ = _run(cand, (x, W_q, W_k, W_v, W_o), H, H_kv, finite=False)
        w[:, j] = y[0, :, 0]
    return w, hd * np.outer(g * a, g * b), label


@invariant("scale", "scores are scaled by 1/sqrt(hd), hd = W_q.shape[1] // n_heads")
def scale(cand, ref, rng):
    for T, d_model, H, H_kv, hd in SCALE_CASES:
        got = attempt(_weights_read_back, cand, T, d_model, H, H_kv, hd, rng)
        if isinstance(got, Broke):
            continue  # a crash (or an unreadable y) on an ordinary problem is for `shape` and the others to report
        w, raw, label = got
        with np.errstate(all="ignore"):
            c = softmax_divisor(w, raw)
        right = f"sqrt(hd) = sqrt({hd}) = {fmt(np.sqrt(hd))}, hd = W_q.shape[1] // n_heads = {H * hd} // {H}"
        if c is None:
            raise Fail(f"{label}: the attention weights (read back from y, giving one key at a time a value of 1) "
                       f"{divisor_unreadable(w)}, so the scale cannot be judged on its own; fix the other failed "
                       f"checks first (the scores are to be divided by {right})")
        if isclose(c, np.sqrt(hd), rtol=1e-4, atol=0.0):
            continue
        choices = {f"sqrt(d_model) = sqrt({d_model})": np.sqrt(d_model),
                   f"sqrt(d_model // n_heads) = sqrt({d_model // H})": np.sqrt(d_model // H),
                   f"hd = {hd}": float(hd), "1 (no scaling)": 1.0,
                   f"sqrt(n_heads * hd) = sqrt({H * hd})": np.sqrt(H * hd),
                   f"sqrt(n_kv_heads * hd) = sqrt(W_k.shape[1]) = sqrt({H_kv * hd})": np.sqrt(H_kv * hd)}
        for name, value in choices.items():
            if isclose(c, value, rtol=1e-4, atol=0.0):
                raise Fail(f"{label}: the scores were divided by {name}; divide them by {right}")
        raise Fail(f"{label}: the scores were divided by {fmt(c)} (the weights are softmax(q k^T / {fmt(c)})); "
                   f"divide them by {right}")


@invariant("prefix", "outputs at positions < t do not change when later positions change or are cut off")
def prefix(cand, ref, rng):
    for B, T, d_model, H, H_kv, hd in ((2, 7, 12, 4, 2, 3), (1, 6, 8, 6, 3, 4)):
        args = _inputs(rng, B, T, d_model, H, H_kv, hd)
        # The candidate is compared with itself: a y of the wrong shape (a batch axis dropped, say) is for `shape`,
        # and is still held to the prefix property along its positions axis.
        got = attempt(_run, cand, args, H, H_kv, exact_shape=False)
        if isinstance(got, Broke):
            if not got.raised:
                raise Fail(got.text)  # a nan: a fully masked row, the diagonal masked too
            continue  # a crash on these ordinary inputs is for `shape` and the others to report
        y, label = got
        if y.ndim != 3 or y.shape[1] != T:
            continue
        t = int(rng.integers(2, T - 1))
        x, *W = args
        x_cut = x[:, :t]
        y_cut, label_cut = _run(cand, (x_cut, *W), H, H_kv, exact_shape=False)
        check_close(y_cut, y[:, :t], f"{label_cut} (x cut to its first {t} positions)",
                    context=f"compared with the first {t} positions of {label}; position i may only attend to "
                            "positions <= i")
        x_new = x.copy()
        x_new[:, t:] = rng.normal(size=x_new[:, t:].shape)
        y_new, _ = _run(cand, (x_new, *W), H, H_kv, exact_shape=False)
        check_shape(y_new, y.shape, f"{label} (x changed at positions {t} and later)")
        bad = ~isclose(y_new[:, :t], y[:, :t], rtol=1e-6, atol=1e-9)
        if bad.any():
            b, i, f = (int(v) for v in np.argwhere(bad)[0])
            raise Fail(f"{label}: y[{b}, {i}, {f}] changed from {fmt(y[b, i, f])} to {fmt(y_new[b, i, f])} when only "
                       f"positions {t} and later of x changed; position {i} may only attend to positions <= {i} "
                       "(mask the future with -inf before the softmax)")


def _shifted_keys(rng, B, T, d_model, H, H_kv, hd, m):
    """(moderate args, the same with every key shifted): a shift that adds thousands to whole rows of scores.

    Feature 0 of x is 0 in the moderate problem and m[b] in the shifted one; it reaches neither q nor v (rows 0 of
    W_q and W_v are zero) and adds m[b] * u to every hd-slice of every key, u a unit vector the keys are otherwise
    orthogonal to, while q has a large component along u. That adds m[b] * (q . u) / sqrt(hd) to every score of a
    row, which attention ignores: y must not change, however the heads are split, shared or scaled.
    """
    u = rng.normal(size=hd)
    u /= np.linalg.norm(u)
    x, W_q, W_k, W_v, W_o = _inputs(rng, B, T, d_model, H, H_kv, hd)
    x[..., 0] = 0.0
    W_q += np.kron(rng.normal(scale=1 / np.sqrt(d_model), size=(d_model, H)), u)  # q . u of about 1 per head
    W_k -= np.kron((W_k.reshape(d_model, H_kv, hd) @ u), u)  # keys orthogonal to u: moderate scores
    W_q[0], W_v[0], W_k[0] = 0.0, 0.0, np.tile(u, H_kv)
    x_shifted = x.copy()
    x_shifted[..., 0] = np.asarray(m, dtype=float)[:, None]
    return (x, W_q, W_k, W_v, W_o), (x_shifted, W_q, W_k, W_v, W_o)


def _stable_cases(rng):
    """(name, large args, moderate args of the same shapes, H, H_kv, advice, judge) for three shortcuts.

    judge "shift": the large problem is the moderate one with thousands added to whole rows of scores, so y must
    equal the candidate's own y on the moderate one. judge "reference": y is compared with the reference, but only
    when the candidate matches it on the moderate problem (otherwise the difference is for the other checks).
    """
    B, T, d_model, H, H_kv, hd = 2, 5, 8, 4, 2, 3
    moderate, large = _shifted_keys(rng, B, T, d_model, H, H_kv, hd, m=np.full(B, 3000.0))
    yield ("scores of several thousand, of both signs", large, moderate, H, H_kv,
           "before np.exp, subtract each row's maximum (axis=-1, keepdims=True)", "shift")
    # One sequence shifted by thousands, one by about 1, one by thousands the other way, in the same batch.
    moderate, large = _shifted_keys(rng, 3, T, d_model, H, H_kv, hd, m=np.array([2000.0, 1.0, -2000.0]))
    yield ("three sequences at very different scales in one batch", large, moderate, H, H_kv,
           "subtract each row's own maximum (axis=-1, keepdims=True), not one maximum of the whole array: rows "
           "far below a global maximum underflow to 0/0", "shift")
    # Scores grow along the keys, so each row's largest score lies in its masked future.
    u = rng.normal(size=d_model)
    u /= np.linalg.norm(u)
    alpha = np.linspace(0.1, 1.0, T)
    x = alpha[None, :, None] * u + rng.normal(scale=1e-3, size=(B, T, d_model))
    W_q = np.outer(u, np.full(H * hd, 60.0)) + rng.normal(scale=0.1, size=(d_model, H * hd))
    W_k = np.outer(u, np.full(H_kv * hd, 60.0)) + rng.normal(scale=0.1, size=(d_model, H_kv * hd))
    W_v = rng.normal(size=(d_model, H_kv * hd))
    W_o = rng.normal(scale=1 / np.sqrt(H * hd), size=(H * hd, d_model))
    yield ("scores that grow along the keys, so each row's largest score is in its masked future",
           (x, W_q, W_k, W_v, W_o), _inputs(rng, B, T, d_model, H, H_kv, hd), H, H_kv,
           "mask first, then subtract the maximum of the keys each row may see; a maximum taken before the mask "
           "comes from the future and pushes every visible score to exp(-thousands) = 0", "reference")
    # Every score of the problem thousands below 0, then about -1e4 (see uniform_score_shift).
    for low, head in low_shifts(hd):
        moderate, large = uniform_score_shift(rng, B, T, d_model, H, head, H_kv, shift=low)
        yield (f"every score shifted by {low:,.0f}, so no score anywhere is large and positive, at hd = {head}",
               large, moderate, H, H_kv, "always subtract each row's maximum (axis=-1, keepdims=True) before "
               f"np.exp, not only when some score is large, and {fill_before_scale(head, 'hd')}", "shift")
    # Scores that rise from about 0 at key 0 to about 1.5e4 at the last key, the same for every query: the future
    # outscores what a query may see by more than 1e4, so a finite fill such as -1e4 added to the future leaves it
    # ahead (and a -inf mask does not care).
    yield ("scores rising along the keys from 0 to 1.5e4, so the future outscores the visible keys by more than "
           "1e4", _rising_scores(rng, B, T + 1, d_model, H, H_kv, hd, top=1.5e4),
           _inputs(rng, B, T + 1, d_model, H, H_kv, hd), H, H_kv,
           "mask the future with -inf (or the dtype's lowest number), not a finite fill such as -1e4 that scores "
           "this large outweigh", "reference")


def _rising_scores(rng, B, T, d_model, H, H_kv, hd, top):
    """Inputs whose scores (every head, every query) are about top * j / (T - 1) at key j, plus noise of about 1.

    Feature 0 of x is 1 and feature 1 is j / (T - 1): W_q maps feature 0, W_k feature 1, onto one unit vector u of
    each head; the other features are random and reach q and k only weakly, v fully."""
    u = rng.normal(size=hd)
    u /= np.linalg.norm(u)
    x, W_q, W_k, W_v, W_o = _inputs(rng, B, T, d_model, H, H_kv, hd, scale=0.3)
    x[..., 0], x[..., 1] = 1.0, np.linspace(0.0, 1.0, T)
    a = np.sqrt(top * np.sqrt(hd))  # q . k / sqrt(hd) = a^2 * j / (T - 1) / sqrt(hd) = top * j / (T - 1)
    W_q[:2], W_k[:2], W_v[:2] = 0.0, 0.0, 0.0
    W_q[0], W_k[1] = np.tile(a * u, H), np.tile(a * u, H_kv)
    return x, W_q, W_k, W_v, W_o


@invariant("stable", "scores of thousands, rows at very different scales, large future scores and each row's "
                     "maximum at a random earlier key: no overflow, no 0/0")
def stable(cand, ref, rng):
    shortcuts = {"none": "there is no max subtraction before np.exp",
                 "global": "one maximum of the whole array was subtracted, not each row's own",
                 "before-mask": "the maximum was taken before the future was masked"}
    cases = list(_stable_cases(rng))
    # A y of the wrong shape is for `shape` to report; here it is still compared with itself. A call that raises on
    # the moderate problem is for the other checks too; one that raises only on the large one is this check's.
    runs, kept = [], []
    for case in cases:
        _, large, moderate, H, H_kv, _, _ = case
        mod = attempt(_run, cand, moderate, H, H_kv, finite=False, exact_shape=False)
        if isinstance(mod, Broke):
            continue
        kept.append(case)
        runs.append((_run(cand, large, H, H_kv, finite=False, exact_shape=False), mod[0]))
    cases = kept
    if not cases:
        return
    with np.errstate(all="ignore"):  # a shortcut is named only if it explains every case
        seen = next((f"; it looks like {what}" for key, what in shortcuts.items()
                     if all(_close(y, _attend(*large, H, H_kv, subtract=key), equal_nan=True)
                            for (_, large, _, H, H_kv, _, _), ((y, _), _) in zip(cases, runs, strict=True))), "")
    for (name, large, moderate, H, H_kv, advice, judge), ((y, label), y_mod) in zip(cases, runs, strict=True):
        if not np.isfinite(y_mod).all() or y.shape != y_mod.shape:
            continue  # a nan at moderate scores is another mistake (a fully masked row, say), not an overflow
        check_finite(y, label, f"{name}, though finite on a moderate problem of the same shapes{seen}; {advice}")
        if judge == "shift":
            idx = worst_entry(y, y_mod, 1e-6, 1e-9)
            if idx is not None:
                raise Fail(f"{label}, {name}: y[{', '.join(map(str, idx))}] is {fmt(y[idx])}, but {fmt(y_mod[idx])} "
                           f"on the same problem at moderate scores. Here every key was shifted by one vector, which "
                           f"adds the same amount (up to thousands) to all the scores of a row; the softmax ignores "
                           f"that, so y must not change: the softmax loses precision (or clips) at large scores"
                           f"{seen}; {advice}, and compute in float64")
        elif _close(y_mod, ref.gqa_attention(*moderate, H, H_kv)):
            check_close(y, ref.gqa_attention(*large, H, H_kv), label,
                        context=f"{name}; it matches the reference at moderate scores{seen}; {advice}")
    _stable_peaked(cand, ref, rng)


def _stable_peaked(cand, ref, rng):
    """Scores up to about 1e4 whose largest entry in each row sits at a random key j <= i, far above the rest of
    the row, in every head: a softmax shifted by the diagonal's score, the first key's or the row mean overflows.

    Finite numbers are asked wherever an ordinary problem of the same shapes gives them; the values are held to
    the reference only where the candidate matches it there."""
    B, T, d_model, H, H_kv, hd = 2, 16, 10, 4, 2, 4
    moderate = _inputs(rng, B, T, d_model, H, H_kv, hd)
    got = attempt(_run, cand, moderate, H, H_kv, finite=False)
    if isinstance(got, Broke) or not np.isfinite(got[0]).all():
        return  # fails on an ordinary problem: for the other checks
    matches = _close(got[0], ref.gqa_attention(*moderate, H, H_kv))
    x, Ws, scores = peaked_self_attention(rng, B, T, d_model, H, hd, H_kv)
    y, label = _run(cand, (x, *Ws), H, H_kv, finite=False)
    name = ("W_q and W_k chosen so that in every head each row's largest score sits at a random key j <= i, up to "
            "about 1e4 and far above the rest of the row")
    advice = ("subtract each row's own maximum over the keys it may see (axis=-1, keepdims=True), after masking, "
              "before np.exp")
    bad = ~np.isfinite(y)
    if bad.any():
        b, i, f = (int(v) for v in np.argwhere(bad)[0])
        raise Fail(f"{label}, {name}: y[{b}, {i}, {f}] is {fmt(y[b, i, f])} (overflow or 0/0) where "
                   f"{peak_text(scores[b], (i,))} in every head, while an ordinary problem of the same shapes gives a "
                   f"finite y: {advice}")
    if matches:
        want = ref.gqa_attention(x, *Ws, H, H_kv)
        idx = worst_entry(y, want, 1e-6, 1e-9)
        if idx is not None:
            b, i, f = idx
            raise Fail(f"{label}, {name}: y[{b}, {i}, {f}] {is_expected(y[idx], want[idx])}, where "
                       f"{peak_text(scores[b], (i,))} in every head; the same code matches on an ordinary problem: "
                       f"{advice}")


@invariant("bad-input", "n_heads not a multiple of n_kv_heads raises ValueError; zero KV heads are refused")
def bad_input(cand, ref, rng):
    for H, H_kv in ((4, 3), (6, 4), (3, 2), (2, 4)):
        args = _inputs(rng, 2, 4, 8, H, H_kv, 2)
        expect_raises(cand, "ValueError", "gqa_attention", *args, H, H_kv,
                      what=f"{_label(args[0], args[1], args[2], H, H_kv)}, where {H} % {H_kv} != 0,")
    # Zero KV heads: no n_heads >= 1 is a multiple of 0, so the call must refuse. The contract's ValueError, or the
    # ZeroDivisionError that `n_heads % n_kv_heads` raises on the way to that check, both refuse; a result does not.
    args = _inputs(rng, 2, 4, 8, 4, 0, 2)
    expect_refused(cand, ("ValueError", "ZeroDivisionError"), "gqa_attention", *args, 4, 0,
                   what=f"{_label(args[0], args[1], args[2], 4, 0)}, zero KV heads,")


@invariant("matches-reference", "matches a reference GQA to rtol 1e-6, T = 1,031 included")
def matches_reference(cand, ref, rng):
    for B, T, d_model, H, H_kv, hd in CONFIGS:
        for scale_ in (1.0, 3.0):
            args = _inputs(rng, B, T, d_model, H, H_kv, hd, scale=scale_)
            y, label = _run(cand, args, H, H_kv)
            check_close(y, ref.gqa_attention(*args, H, H_kv), label)
    # A position of zeros: its query, key and value are zeros, so its scores are exactly 0 (see with_zero_rows).
    args = list(_inputs(rng, 2, 6, 8, 4, 2, 2))
    args[0], t = with_zero_rows(rng, args[0])
    y, label = _run(cand, tuple(args), 4, 2, finite=False)
    check_close(y, ref.gqa_attention(*args, 4, 2), label,
                context=f"position {t} of x is all zeros, so its scores are exactly 0; {ZERO_SCORES}")
    # Long sequences: code that changes precision or method above some length (float32 for long inputs) is right
    # on every small problem above. Scores of about +-25 make float32's rounding show well above rtol 1e-6.
    watch = Stopwatch()

    def long(rung):
        args = _inputs(rng, 1, rung.value, 8, 2, 1, 4, scale=5.0)
        want = meanwhile(ref.gqa_attention, *args, 2, 1)
        with watch:
            y, label = _run(cand, args, 2, 1)
        check_close_fast(y, want(), label)

    up_to_long(long, watch)


@invariant("input-unchanged", "x and the four weight matrices are not modified")
def input_unchanged(cand, ref, rng):
    # Every call of every check is also judged for changes in place (the long rung of matches-reference among
    # them); here GQA, MQA (one KV head), MHA (n_kv_heads == n_heads) and one position, each called twice.
    names = ("x", "W_q", "W_k", "W_v", "W_o")
    for B, T, d_model, H, H_kv, hd in ((2, 5, 8, 4, 2, 3), (1, 4, 6, 3, 1, 2), (2, 3, 8, 2, 2, 4), (1, 1, 5, 2, 1, 3)):
        args = _inputs(rng, B, T, d_model, H, H_kv, hd)
        for _ in range(2):  # a second call would see the damage of the first
            got = attempt(cand.call_tracking_args, "gqa_attention", *args, H, H_kv)
            if isinstance(got, Broke):
                break  # a call that raises is for the other checks (its arguments cannot be read back)
            _, after, _ = got
            for name, before, now in zip(names, args, after[:5], strict=True):
                check_unchanged(before, now, f"{name} of shape {shape_of(before)} (n_heads={H}, n_kv_heads={H_kv})")


# -- known mistakes, recognised by behaviour on these probes --------------------

def probes(rng):
    for B, T, d_model, H, H_kv, hd in ((2, 5, 8, 4, 2, 3), (1, 6, 12, 6, 3, 4)):
        yield "gqa_attention", (*_inputs(rng, B, T, d_model, H, H_kv, hd, scale=2.0), H, H_kv), {}
    for _, args, _, H, H_kv, _, _ in _stable_cases(rng):
        yield "gqa_attention", (*args, H, H_kv), {}


def _checked(H, H_kv):
    if H % H_kv:
        raise ValueError("n_heads % n_kv_heads != 0")


@mistake("kv-head-modulo", "query head h reads KV head h // (n_heads // n_kv_heads): use np.repeat(k, g, axis=1), "
         "which keeps each group together, not np.tile or h % n_kv_heads")
def _kv_modulo(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads):
    _checked(n_heads, n_kv_heads)
    return _attend(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads, kv_of=np.arange(n_heads) % n_kv_heads)


@mistake("no-causal-mask", "mask the future: set the scores above the diagonal to -inf before the softmax")
def _no_mask(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads):
    _checked(n_heads, n_kv_heads)
    return _attend(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads, causal=False)


@mistake("scale-by-d-model", "divide the scores by sqrt(hd), the width of one head, not sqrt(d_model)")
def _scale_d_model(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads):
    _checked(n_heads, n_kv_heads)
    return _attend(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads, scale=1 / np.sqrt(x.shape[-1]))


@mistake("head-size-from-d-model", "the head size is W_q.shape[1] // n_heads, which need not be d_model // n_heads")
def _scale_d_model_heads(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads):
    _checked(n_heads, n_kv_heads)
    return _attend(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads, scale=1 / np.sqrt(x.shape[-1] // n_heads))


@mistake("no-scale", "divide the scores by sqrt(hd) before the softmax")
def _no_scale(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads):
    _checked(n_heads, n_kv_heads)
    return _attend(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads, scale=1.0)


@mistake("split-without-transpose", "reshape to (B, T, heads, hd) first, then swap axes 1 and 2; a reshape straight "
         "to (B, heads, T, hd) hands each head slices of several positions")
def _split_no_transpose(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads):
    _checked(n_heads, n_kv_heads)
    return _attend(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads, split_transpose=False, merge_transpose=False)


@mistake("merge-without-transpose", "swap the head and position axes back (transpose(0, 2, 1, 3)) before the reshape "
         "to (B, T, n_heads * hd)")
def _merge_no_transpose(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads):
    _checked(n_heads, n_kv_heads)
    return _attend(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads, merge_transpose=False)


@mistake("no-max-subtraction", "subtract each row's maximum from the scores before np.exp: scores past about 709 "
                               "overflow, and rows far below zero underflow to 0/0")
def _no_max(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads):
    _checked(n_heads, n_kv_heads)
    return _attend(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads, subtract="none")


@mistake("global-max", "subtract the maximum of each row of scores (axis=-1, keepdims=True), not one maximum of the "
                       "whole array")
def _global_max(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads):
    _checked(n_heads, n_kv_heads)
    return _attend(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads, subtract="global")


@mistake("max-before-mask", "mask the future first, then subtract the maximum of the scores each row may see; the "
                            "maximum over the unmasked row can come from the future")
def _max_before_mask(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads):
    _checked(n_heads, n_kv_heads)
    return _attend(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads, subtract="before-mask")


_first_probes = probes


def probes(rng):  # noqa: F811 -- the first probes, then multi-query attention over a batch, and too few query heads
    yield from _first_probes(rng)
    yield "gqa_attention", (*_inputs(rng, 2, 4, 8, 2, 1, 3, scale=2.0), 2, 1), {}
    yield "gqa_attention", (*_inputs(rng, 1, 4, 8, 2, 4, 3), 2, 4), {}
    # scores in the thousands: a shift by anything but each row's maximum overflows or underflows here
    yield "gqa_attention", (*_inputs(rng, 2, 5, 8, 4, 2, 3, scale=40.0), 4, 2), {}
    # a position of zeros: its query and key are zeros, so its scores are exactly 0
    x, *Ws = _inputs(rng, 1, 5, 8, 4, 2, 3)
    x[0, 2] = 0.0
    yield "gqa_attention", (x, *Ws, 4, 2), {}


def _gqa(x, W_q, W_k, W_v, W_o, H, H_kv, *, kv_of=None, scale=None, blocked=None, shift=None, zero_after=False,
         softmax_dtype=np.float64, zeros_blocked=False):
    """gqa_attention with one known mistake switched on, for the variants below."""
    _checked(H, H_kv)
    x = np.asarray(x, dtype=np.float64)
    B, T, _ = x.shape
    hd = W_q.shape[1] // H
    kv_of = np.arange(H) // (H // H_kv) if kv_of is None else np.asarray(kv_of)
    q = (x @ W_q).reshape(B, T, H, hd).transpose(0, 2, 1, 3)
    k = (x @ W_k).reshape(B, T, H_kv, hd).transpose(0, 2, 1, 3)[:, kv_of]
    v = (x @ W_v).reshape(B, T, H_kv, hd).transpose(0, 2, 1, 3)[:, kv_of]
    s = q @ np.swapaxes(k, -1, -2) * (1 / np.sqrt(hd) if scale is None else scale)
    if zero_after:
        w = np.exp(s - s.max(axis=-1, keepdims=True))
        w = w / w.sum(axis=-1, keepdims=True) * np.tril(np.ones((T, T)))
    else:
        m = np.where(np.triu(np.ones((T, T), dtype=bool), 1) if blocked is None else blocked(T), -np.inf, s)
        if zeros_blocked:  # np.tril, then every 0 taken for a blocked entry, a real score of 0 included
            m = np.where(np.tril(s) == 0, -np.inf, np.tril(s))
        m = m.astype(softmax_dtype)
        w = np.exp(m - (m.max(axis=-1, keepdims=True) if shift is None else shift(s, m)))
        w = (w / w.sum(axis=-1, keepdims=True)).astype(np.float64)
    return (w @ v).transpose(0, 2, 1, 3).reshape(B, T, H * hd) @ W_o


def _gqa_with(**switches):
    def gqa_attention(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads):
        return _gqa(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads, **switches)
    return gqa_attention


_mistake_diag_shift = mistake(
    "shift-by-diagonal", "subtract each row's maximum before np.exp, not its diagonal score: a larger score in the "
    "row still overflows")(_gqa_with(shift=lambda s, m: np.diagonal(s, axis1=-2, axis2=-1)[..., None]))
_mistake_first_key_shift = mistake(
    "shift-by-first-key", "subtract each row's maximum before np.exp, not the first key's score: a larger score "
    "later in the row still overflows")(_gqa_with(shift=lambda s, m: m[..., :1]))


# The same shift with the future zeroed after np.exp: a future score that overflows is inf * 0 = nan there too.
@mistake("shift-by-first-key", _mistake_first_key_shift.mistake_message)
def _first_key_shift_mask_by_product(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads):
    _checked(n_heads, n_kv_heads)
    return _attend(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads, subtract="first-key", mask_by_product=True)


_mistake_mean_shift = mistake(
    "shift-by-mean", "subtract each row's maximum before np.exp, not its mean: a score far above the mean still "
    "overflows")(_gqa_with(shift=lambda s, m: s.mean(axis=-1, keepdims=True)))
_mistake_mask_diagonal = mistake(
    "mask-includes-diagonal", "mask only the positions strictly above the diagonal (np.triu(..., k=1)); every "
    "position attends to itself")(_gqa_with(blocked=lambda T: np.triu(np.ones((T, T), dtype=bool))))
_mistake_keep_as_blocked = mistake(
    "keep-mask-as-blocked", "np.tril(ones) marks the positions to keep: fill where it is False (or use "
    "np.triu(..., k=1) as the blocked mask), not where it is True")(
    _gqa_with(blocked=lambda T: np.tril(np.ones((T, T), dtype=bool))))
_mistake_zeros_blocked = mistake(
    "zero-scores-blocked", "mark the future with the mask itself (np.where(mask, -np.inf, scores)), not by the zeros "
    "np.tril leaves: a real score can be exactly 0 (a position of zeros, or a query orthogonal to a key)")(
    _gqa_with(zeros_blocked=True))
_mistake_softmax_float32 = mistake(
    "softmax-in-float32", "compute the softmax in float64, as its inputs are: float32 keeps about 7 digits, so "
    "scores in the thousands lose digits the tolerance needs (torch: leave out .float())")(
    _gqa_with(softmax_dtype=np.float32))
_mistake_zero_after = mistake(
    "mask-after-softmax", "mask the scores with -inf before the softmax; zeroing weights afterwards leaves rows that "
    "no longer sum to one")(_gqa_with(zero_after=True))


@mistake("kv-head-by-n-kv", "query head h reads KV head h // (n_heads // n_kv_heads), the group size, not "
         "h // n_kv_heads")
def _kv_by_n_kv(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads):
    return _gqa(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads, kv_of=np.arange(n_heads) // n_kv_heads)


@mistake("scale-by-kv-width", "divide the scores by sqrt(hd), one head's width, not by the width of all the KV "
         "heads (n_kv_heads * hd)")
def _scale_kv_width(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads):
    return _gqa(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads, scale=1 / np.sqrt(W_k.shape[1]))


@mistake("batch-of-one", "keep the batch axis throughout: this computes only x[0] and drops the other sequences")
def _gqa_batch_one(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads):
    return _gqa(np.asarray(x)[:1], W_q, W_k, W_v, W_o, n_heads, n_kv_heads)


@mistake("repeat-weight-columns", "repeat whole KV heads (np.repeat on the head axis of k and v), not single "
         "columns of W_k and W_v")
def _repeat_columns(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads):
    _checked(n_heads, n_kv_heads)
    g = n_heads // n_kv_heads
    return _gqa(x, W_q, np.repeat(W_k, g, axis=1), np.repeat(W_v, g, axis=1), W_o, n_heads, n_heads)


@mistake("scale-folded-in-place", "scale a copy (W_q / sqrt(hd)) or the scores, not W_q with /=, which changes the "
         "caller's matrix on every call")
def _gqa_scale_in_place(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads):
    y = _gqa(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads)
    W_q /= np.sqrt(W_q.shape[1] // n_heads)
    return y


@mistake("mqa-squeeze", "keep the head axis of a single KV head (shape (B, 1, T, hd)) and let it broadcast: "
         "np.squeeze also drops the axes that line the batch up")
def _mqa_squeeze(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads):
    _checked(n_heads, n_kv_heads)
    if n_kv_heads != 1:
        return _gqa(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads)
    B, T, _ = x.shape
    hd = W_q.shape[1] // n_heads
    q = (x @ W_q).reshape(B, T, n_heads, hd).transpose(0, 2, 1, 3)
    k, v = (np.squeeze((x @ W).reshape(B, T, 1, hd).transpose(0, 2, 1, 3)) for W in (W_k, W_v))
    s = np.where(np.triu(np.ones((T, T), dtype=bool), 1), -np.inf, q @ np.swapaxes(k, -1, -2) / np.sqrt(hd))
    w = np.exp(s - s.max(axis=-1, keepdims=True))
    w /= w.sum(axis=-1, keepdims=True)
    return (w @ v).transpose(0, 2, 1, 3).reshape(B, T, n_heads * hd) @ W_o


@mistake("assert-divisible", "raise ValueError when n_heads is not a multiple of n_kv_heads; an assert raises "
         "AssertionError and vanishes under python -O")
def _assert_divisible(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads):
    assert n_kv_heads > 0 and n_heads % n_kv_heads == 0, "n_heads must be a multiple of n_kv_heads"
    return _gqa(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads)


@mistake("no-group-check", "raise ValueError when n_heads is not a multiple of n_kv_heads, before computing the "
         "group size (here n_heads // n_kv_heads is 0)")
def _no_group_check(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads):
    g = n_heads // n_kv_heads
    kv_of = [h // g for h in range(n_heads)]  # ZeroDivisionError when there are more KV heads than query heads
    if n_heads % n_kv_heads:
        raise ValueError("a head count that is not a multiple fails by accident here")
    return _gqa(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads, kv_of=kv_of)
