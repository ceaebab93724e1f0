"""Hidden checks for the `mha` exercise."""

import numpy as np

from attnprep.grading import (
    Broke,
    CandidateError,
    Fail,
    allclose,
    as_float,
    attempt,
    check_causal_zeros,
    check_close,
    check_finite,
    check_rows_sum_to_one,
    check_shape,
    check_unchanged,
    divisor_unreadable,
    expect_raises,
    fmt,
    invariant,
    isclose,
    mistake,
    shape_of,
    softmax_divisor,
    unpack,
    worst_entry,
)
from attnprep.ladders import (
    ZERO_SCORES,
    Stopwatch,
    check_close_fast,
    fill_before_scale,
    low_shifts,
    meanwhile,
    normal,
    peak_text,
    peaked_self_attention,
    uniform_score_shift,
    up_to_long,
    with_zero_rows,
)

FUNCTIONS = ("split_heads", "merge_heads", "causal_mha")

# (B, T, d_model, n_heads). T never equals d_head, and T > 1 never equals n_heads, so an
# axis taken for another, or a mask sized from the wrong dimension, cannot pass by accident.
CASES = [(2, 5, 16, 4), (3, 7, 12, 2), (1, 5, 8, 2), (2, 7, 8, 4),
         (3, 1, 12, 4), (2, 5, 12, 1), (1, 7, 16, 1), (1, 1, 16, 4)]
LAYOUT_CASES = [(2, 5, 16, 4), (3, 7, 12, 2), (1, 5, 8, 4), (2, 1, 12, 4), (2, 5, 8, 1)]
LONG_CASES = [(2, 7, 16, 4), (3, 5, 12, 2), (1, 7, 8, 2), (2, 5, 12, 1)]
# (T, d_model, n_heads) of one sequence: sqrt(d_head), sqrt(d_model), d_head, d_model and 1 all differ in each.
SCALE_CASES = [(5, 12, 2), (7, 16, 2), (5, 8, 4), (7, 12, 4)]
BATCH_CASES = [(3, 5, 12, 2), (2, 7, 16, 4), (3, 1, 8, 2)]
BAD_HEADS = [(2, 5, 12, 5), (1, 3, 8, 3), (2, 4, 16, 6), (1, 2, 8, 16)]


# -- calling the candidate --------------------------------------------------------

def _call(cand, fn, where, *args, track=False):
    """Call `fn`; an exception is re-raised with the shapes it happened on."""
    if not track:
        return cand.call_as(f"{fn} on {where}", fn, *args)
    try:
        return cand.call_tracking_args(fn, *args)
    except CandidateError as err:
        if err.not_implemented:
            raise
        raise CandidateError(f"{fn} on {where}", err.type_name, err.mro, err.text, err.line) from None


def _where(x, n_heads):
    B, T, D = x.shape
    return f"x of shape (B={B}, T={T}, d_model={D}), n_heads={n_heads} (d_head={D // n_heads})"


def _problem(rng, B, T, D, scale=1.0):
    x = rng.normal(scale=scale, size=(B, T, D))
    Ws = tuple(rng.normal(size=(D, D)) / np.sqrt(D) for _ in range(4))
    return x, Ws


def _mha(cand, x, Ws, n_heads):
    """The candidate's (y, weights) as float arrays of the contract's shapes."""
    B, T, D = x.shape
    where = _where(x, n_heads)
    out = _call(cand, "causal_mha", where, x, *Ws, n_heads)
    y, w = unpack(out, 2, "causal_mha")
    y = as_float(y, f"y for {where}")
    w = as_float(w, f"weights for {where}")
    for name, arr, want in (("y", y, (B, T, D)), ("weights", w, (B, n_heads, T, T))):
        if arr.ndim == len(want) and arr.shape[1:] == want[1:] and arr.shape[0] != B:
            raise Fail(f"{name} for {where} has shape {shape_of(arr)}, expected {shape_of(np.empty(want))}: "
                       f"x has {B} batch elements but {name} has {arr.shape[0]}")
        check_shape(arr, want, f"{name} for {where}")
    return y, w, where


def _mha_loose(cand, x, Ws, n_heads):
    """The candidate's (y, weights, where) as float arrays of whatever shapes it returned, or None.

    For checks of one property: a crash or an unreadable result is what `shape` reports, so such a check passes
    over it (NotImplementedError still propagates). A y or weights of the wrong shape is still judged on its own.
    """
    got = attempt(lambda: _unpacked(cand, x, Ws, n_heads))
    return None if isinstance(got, Broke) else got


def _unpacked(cand, x, Ws, n_heads):
    where = _where(x, n_heads)
    y, w = unpack(_call(cand, "causal_mha", where, x, *Ws, n_heads), 2, "causal_mha")
    return as_float(y, f"y for {where}"), as_float(w, f"weights for {where}"), where


def _idx(idx):
    return ", ".join(str(int(i)) for i in idx)


# -- describing where labelled entries went ----------------------------------------

def _labelled(rng, shape):
    """Distinct whole numbers 1..N in random order: every entry says where it came from."""
    return (rng.permutation(int(np.prod(shape))) + 1.0).reshape(shape)


def _lookup(arr):
    """value -> index of an array's entries (the last one wins for repeated values)."""
    flat = np.asarray(arr, dtype=np.float64).ravel()
    return {float(v): i for i, v in enumerate(flat) if np.isfinite(v)}


def _locate(values, table, shape):
    out = []
    for v in values:
        i = table.get(float(v)) if np.isfinite(v) else None
        out.append(None if i is None else tuple(int(k) for k in np.unravel_index(i, shape)))
    return out


def _features(fs):
    if len(fs) > 1 and all(b - a == 1 for a, b in zip(fs, fs[1:], strict=False)):
        return f"features {fs[0]}:{fs[-1] + 1}"
    if len(fs) == 1:
        return f"feature {fs[0]}"
    return "features " + ", ".join(map(str, fs))


def _places(spots, b_home):
    """Words for a list of (b, t, f) spots of a (B, T, d_model) array."""
    if any(s is None for s in spots):
        return None
    rows = {(s[0], s[1]) for s in spots}
    if len(rows) == 1:
        b, t = spots[0][0], spots[0][1]
        batch = f" of batch element {b}" if b != b_home else ""
        return f"{_features([s[2] for s in spots])} of position {t}{batch}"
    words = [f"feature {f} of position {t}" + (f" of batch element {b}" if b != b_home else "")
             for b, t, f in spots[:3]]
    return "a mix of positions (" + ", ".join(words) + (", ..." if len(spots) > 3 else "") + ")"


def _head_places(spots, b_home):
    """Words for a list of (b, h, t, j) spots of a (B, H, T, d_head) array."""
    if any(s is None for s in spots):
        return None
    blocks = {s[:3] for s in spots}
    if len(blocks) == 1:
        b, h, t = spots[0][:3]
        batch = f" of batch element {b}" if b != b_home else ""
        js = [s[3] for s in spots]
        what = _features(js).replace("features", "entries").replace("feature", "entry")
        return f"{what} of head {h} at position {t}{batch}"
    words = [f"entry {j} of head {h} at position {t}" + (f" of batch element {b}" if b != b_home else "")
             for b, h, t, j in spots[:3]]
    return "a mix of heads and positions (" + ", ".join(words) + (", ..." if len(spots) > 3 else "") + ")"


# -- private helpers other exercises could share -----------------------------------

def _single_head(x, W_q, W_k, W_v, W_o):
    """Single-head causal attention, written out on its own: (y, weights (B, T, T))."""
    q, k, v = x @ W_q, x @ W_k, x @ W_v
    T, d = x.shape[-2], x.shape[-1]
    s = q @ np.swapaxes(k, -1, -2) / np.sqrt(d)
    s = np.where(np.triu(np.ones((T, T), dtype=bool), k=1), -np.inf, s)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    w = e / e.sum(axis=-1, keepdims=True)
    return (w @ v) @ W_o, w


# -- the invariants ------------------------------------------------------------------

@invariant("split-layout", "split_heads puts features h*d_head:(h+1)*d_head of position t at head h, position t")
def split_layout(cand, ref, rng):
    for B, T, D, H in LAYOUT_CASES:
        dh = D // H
        x = _labelled(rng, (B, T, D))
        where = _where(x, H)
        out = as_float(_call(cand, "split_heads", where, x, H), f"split_heads on {where}")
        check_shape(out, (B, H, T, dh), f"split_heads on {where}")
        table = _lookup(x)
        ctx = f"B={B}, T={T}, d_model={D}, H={H}"
        for b in range(B):
            for h in range(H):
                for t in range(T):
                    want = x[b, t, h * dh:(h + 1) * dh]
                    if np.array_equal(out[b, h, t], want):
                        continue
                    batch = f"in batch element {b}, " if B > 1 and b else ""
                    held = _places(_locate(out[b, h, t], table, x.shape), b)
                    held = held or f"values that are not entries of x ({fmt(out[b, h, t, 0])}, ...)"
                    raise Fail(f"split_heads: {batch}head {h} at position {t} holds {held}, expected "
                               f"features {h * dh}:{(h + 1) * dh} of position {t} ({ctx})")


@invariant("merge-layout", "merge_heads puts head h at features h*d_head:(h+1)*d_head")
def merge_layout(cand, ref, rng):
    for B, T, D, H in LAYOUT_CASES:
        dh = D // H
        heads = _labelled(rng, (B, H, T, dh))
        where = f"x of shape {shape_of(heads)}"
        out = as_float(_call(cand, "merge_heads", where, heads), f"merge_heads on {where}")
        check_shape(out, (B, T, D), f"merge_heads on {where}")
        table = _lookup(out)
        ctx = f"B={B}, T={T}, H={H}"
        for b in range(B):
            for t in range(T):
                for h in range(H):
                    spots = _locate(heads[b, h, t], table, out.shape)
                    if spots == [(b, t, f) for f in range(h * dh, (h + 1) * dh)]:
                        continue
                    batch = f"in batch element {b}, " if B > 1 and b else ""
                    landed = _places(spots, b)
                    expected = f"expected features {h * dh}:{(h + 1) * dh} of position {t}"
                    if landed is None:
                        raise Fail(f"merge_heads: {batch}head {h} at position {t} is missing from the output "
                                   f"(its values appear nowhere in it), {expected} ({ctx})")
                    raise Fail(f"merge_heads: {batch}head {h} at position {t} landed at {landed}, "
                               f"{expected} ({ctx})")
        check_close(out, ref.merge_heads(heads), f"merge_heads on {where}")


@invariant("round-trip", "merge_heads(split_heads(x, H)) is x, and split_heads(merge_heads(h), H) is h")
def round_trip(cand, ref, rng):
    for B, T, D, H in LAYOUT_CASES:
        dh = D // H
        x = _labelled(rng, (B, T, D))
        where = _where(x, H)
        split = as_float(_call(cand, "split_heads", where, x, H), f"split_heads on {where}")
        label = f"merge_heads(split_heads(x, {H})) for x of shape (B={B}, T={T}, d_model={D})"
        back = as_float(_call(cand, "merge_heads", f"the output of split_heads for {where}", split), label)
        check_shape(back, x.shape, label)
        diff = np.argwhere(back != x)
        if len(diff):
            b, t, f = (int(i) for i in diff[0])
            held = _places(_locate([back[b, t, f]], _lookup(x), x.shape), b)
            held = held or f"{fmt(back[b, t, f])}, which is not an entry of x"
            batch = f" of batch element {b}" if B > 1 and b else ""
            raise Fail(f"{label} should give x back, but feature {f} of position {t}{batch} holds {held}")

        heads = _labelled(rng, (B, H, T, dh))
        merged = as_float(_call(cand, "merge_heads", f"x of shape {shape_of(heads)}", heads),
                          f"merge_heads on x of shape {shape_of(heads)}")
        label = f"split_heads(merge_heads(h), {H}) for h of shape (B={B}, H={H}, T={T}, d_head={dh})"
        again = as_float(_call(cand, "split_heads", f"the output of merge_heads, n_heads={H}", merged, H), label)
        check_shape(again, heads.shape, label)
        diff = np.argwhere(again != heads)
        if len(diff):
            b, h, t, j = (int(i) for i in diff[0])
            held = _head_places(_locate([again[b, h, t, j]], _lookup(heads), heads.shape), b)
            held = held or f"{fmt(again[b, h, t, j])}, which is not an entry of h"
            batch = f" of batch element {b}" if B > 1 and b else ""
            raise Fail(f"{label} should give h back, but entry {j} of head {h} at position {t}{batch} "
                       f"holds {held}")


@invariant("shape", "causal_mha returns y of shape (B, T, d_model) and weights of shape (B, n_heads, T, T)")
def shape(cand, ref, rng):
    for B, T, D, H in CASES:
        x, Ws = _problem(rng, B, T, D)
        _mha(cand, x, Ws, H)


@invariant("sum-to-one", "every row of weights sums to one over the keys")
def sum_to_one(cand, ref, rng):
    for B, T, D, H in CASES:
        x, Ws = _problem(rng, B, T, D, scale=2.0)
        got = _mha_loose(cand, x, Ws, H)
        # weights of the wrong shape (a head axis dropped, say) are for `shape`; their rows must still sum to one
        if got is None or got[1].ndim < 2 or got[1].shape[-1] != T:
            continue
        _, w, where = got
        check_rows_sum_to_one(w, where)


def _big_scores(rng, B, T, D, H, rising):
    """x and W whose scores are about -1e4 everywhere (or rise from -1e4 to +1e4 along the keys), every head.

    Feature 0 of x is a constant c and feature 1 is r_t * c; W_q copies feature 0 into every q feature and W_k
    copies feature 1 (or -feature 0) into every k feature, so each head's score is about r_j * c^2 * sqrt(d_head).
    """
    c = np.sqrt(1e4 / np.sqrt(D // H))
    r = np.linspace(-1.0, 1.0, T) if rising else np.full(T, -1.0)
    x = rng.normal(scale=0.1, size=(B, T, D))
    x[..., 0], x[..., 1] = c, r * c
    W_q, W_k = (rng.normal(scale=0.01, size=(D, D)) for _ in range(2))
    W_q[0] += 1.0
    if rising:
        W_k[1] += 1.0
    else:
        W_k[0] -= 1.0
    return x, (W_q, W_k, rng.normal(size=(D, D)) / np.sqrt(D), rng.normal(size=(D, D)) / np.sqrt(D))


@invariant("upper-triangle-zero", "weights are exactly 0.0 above the diagonal, and the diagonal is never masked")
def upper_triangle_zero(cand, ref, rng):
    for B, T, D, H in CASES:
        x, Ws = _problem(rng, B, T, D)
        got = _mha_loose(cand, x, Ws, H)
        # weights of the wrong shape (a head axis dropped, say) are for `shape`; they are still judged as (T, T)
        if got is None or got[1].ndim < 2 or got[1].shape[-2:] != (T, T):
            continue
        _, w, where = got
        check_causal_zeros(w, where)
    # Scores near 1e4: the future must still get exactly 0.0, which a finite fill such as -1e4 (put in place or
    # added) does not give here. An overflow or 0/0 at these scores is for matches-reference to report.
    for (B, T, D, H), name, rising in (((2, 6, 8, 2), "scores near -1e4", False),
                                       ((2, 6, 8, 2), "later keys scoring far higher", True)):
        x, Ws = _big_scores(rng, B, T, D, H, rising)
        got = _mha_loose(cand, x, Ws, H)
        if got is None or got[1].ndim < 2 or got[1].shape[-2:] != (T, T) or not np.isfinite(got[1]).all():
            continue
        _, w, where = got
        leak = np.triu(np.ones((T, T), dtype=bool), k=1) & (w != 0.0)
        if leak.any():
            idx = tuple(int(i) for i in np.argwhere(leak)[0])
            raise Fail(f"{where}, {name}: weights[{_idx(idx)}] is {fmt(w[idx])}, expected exactly 0.0: query "
                       f"{idx[-2]} must not attend to the later key {idx[-1]}; is the future filled with a finite "
                       f"number such as -1e4? Next to scores of about 1e4 it is not small enough: use -np.inf "
                       f"(or -1e9)")


def _same_shape_runs(runs):
    """The runs' (y, weights) if every run gave them readable, with one shape each across the runs; else None."""
    if any(r is None for r in runs):
        return None
    if len({r[0].shape for r in runs}) != 1 or len({r[1].shape for r in runs}) != 1:
        return None
    return runs


@invariant("prefix", "outputs at the first t positions do not change when later positions change or are cut off")
def prefix(cand, ref, rng):
    # The candidate against itself only. A y or weights of the wrong shape (a batch or head axis dropped, say) is
    # for `shape`: they are still held to the property along their positions axis when that axis is there.
    for B, T, D, H in LONG_CASES:
        x, Ws = _problem(rng, B, T, D)
        t0 = int(rng.integers(2, T))
        changed = x.copy()
        changed[:, t0:] = rng.normal(scale=3.0, size=(B, T - t0, D))
        runs = _same_shape_runs([_mha_loose(cand, x, Ws, H), _mha_loose(cand, changed, Ws, H)])
        if runs is None:
            continue
        (y, w, where), (y2, w2, _) = runs
        if y.ndim != 3 or y.shape[1] != T or w.ndim < 2 or w.shape[-2:] != (T, T):
            continue
        why = f"({where}): a position must not depend on the ones after it"
        later = f"position {t0}" if t0 == T - 1 else f"positions {t0}..{T - 1}"
        idx = worst_entry(y2[:, :t0], y[:, :t0], 1e-6, 1e-9)
        if idx is not None:
            raise Fail(f"changing x at {later} changed y[{_idx(idx)}] at the earlier position "
                       f"{idx[1]} from {fmt(y[idx])} to {fmt(y2[idx])} {why}")
        idx = worst_entry(w2[..., :t0, :], w[..., :t0, :], 1e-6, 1e-9)
        if idx is not None:
            raise Fail(f"changing x at {later} changed weights[{_idx(idx)}] (query position "
                       f"{idx[-2]}) from {fmt(w[idx])} to {fmt(w2[idx])} {why}")

        cut = _mha_loose(cand, x[:, :t0], Ws, H)
        if cut is None or cut[0].shape != y[:, :t0].shape or cut[1].shape != w[..., :t0, :t0].shape:
            continue
        y3, w3, _ = cut
        idx = worst_entry(y3, y[:, :t0], 1e-6, 1e-9)
        if idx is not None:
            raise Fail(f"cutting x to its first {t0} positions changed y[{_idx(idx)}] from {fmt(y[idx])} to "
                       f"{fmt(y3[idx])} {why}")
        idx = worst_entry(w3, w[..., :t0, :t0], 1e-6, 1e-9)
        if idx is not None:
            raise Fail(f"cutting x to its first {t0} positions changed weights[{_idx(idx)}] from {fmt(w[idx])} "
                       f"to {fmt(w3[idx])} {why}")


@invariant("batch-independent", "each batch element gives the same result as when it is run on its own")
def batch_independent(cand, ref, rng):
    for B, T, D, H in BATCH_CASES:
        x, Ws = _problem(rng, B, T, D)
        # The candidate against itself. What it gets wrong whatever the batch size (a crash, the head axis of the
        # weights) is for the other checks; a crash, a result or a shape that only the batch of B has is this one's.
        full = _mha_loose(cand, x, Ws, H)
        alone = [_mha_loose(cand, x[b:b + 1], Ws, H) for b in range(B)]
        if full is None and alone[0] is None:
            continue
        if full is None or any(a is None for a in alone) or full[0].shape[0] != B or full[1].shape[0] != B:
            _mha(cand, x, Ws, H)  # the strict call says what went wrong with the batch
            for b in range(B):
                _mha(cand, x[b:b + 1], Ws, H)
        y, w, where = full
        for b, (yb, wb, _) in enumerate(alone):
            for name, got, one in (("y", y[b], yb), ("weights", w[b], wb)):
                if one.shape[0] != 1 or got.shape != one.shape[1:]:
                    _mha(cand, x, Ws, H)
                    _mha(cand, x[b:b + 1], Ws, H)
                    raise Fail(f"{name} for {where} has {shape_of(got)} per batch element, but {shape_of(one)} for "
                               f"batch element {b} run on its own (x[{b}:{b + 1}]); batch elements must not see "
                               "each other")
                alone_b = one[0]
                idx = worst_entry(got, alone_b, 1e-6, 1e-9)
                if idx is not None:
                    raise Fail(f"{name}[{_idx((b,) + idx)}] for {where} is {fmt(got[idx])}, but {fmt(alone_b[idx])} "
                               f"when batch element {b} is run on its own (x[{b}:{b + 1}]): batch elements "
                               f"must not see each other")


def _scale_problem(rng, T, D, H):
    """One sequence whose per-head scores are known whatever the head layout: W_q and W_k are a constant times a
    matrix of ones (symmetric, so x @ W.T gives the same), every feature of q (and of k) at a position is the same
    number, and each head's raw score q_t . k_s is d_head * a_t * b_s."""
    dh = D // H
    x = rng.normal(size=(1, T, D))
    total = x.sum(axis=-1)[0]
    raw = dh * np.outer(total, total)
    g = np.sqrt(3.0 * np.sqrt(dh) / np.abs(raw).max())  # scores / sqrt(d_head) reach about 3 in size
    W_q = np.repeat(np.full((D, 1), g), D, axis=1)
    W_k = np.repeat(np.full((D, 1), g), D, axis=1)
    Ws = (W_q, W_k, rng.normal(size=(D, D)) / np.sqrt(D), rng.normal(size=(D, D)) / np.sqrt(D))
    return x, Ws, raw * g * g


@invariant("scale", "scores are divided by sqrt(d_head), not sqrt(d_model)")
def scale(cand, ref, rng):
    for T, D, H in SCALE_CASES:
        dh = D // H
        x, Ws, raw = _scale_problem(rng, T, D, H)
        where = _where(x, H)
        out = attempt(_call, cand, "causal_mha", where, x, *Ws, H)
        if isinstance(out, Broke):
            continue  # a crash on an ordinary problem is for `shape` to report
        w = as_float(unpack(out, 2, "causal_mha")[1], f"weights for {where}")
        if w.ndim < 2 or w.shape[-2:] != (T, T):
            raise Fail(f"weights for {where} have shape {shape_of(w)}, expected (1, {H}, {T}, {T}); the scale "
                       f"cannot be judged until they have one row of {T} keys per query")
        with np.errstate(all="ignore"):
            c = softmax_divisor(w, raw)
        right = f"sqrt(d_head) = sqrt({dh}) = {fmt(np.sqrt(dh))}"
        if c is None:
            raise Fail(f"weights for {where} {divisor_unreadable(w)}, so the scale cannot be judged on its own; "
                       f"fix the other failed checks first (the scores are to be divided by {right})")
        if isclose(c, np.sqrt(dh), rtol=1e-4, atol=0.0):
            continue
        for name, s in ((f"sqrt(d_model) = sqrt({D})", np.sqrt(D)), (f"d_head = {dh}", float(dh)),
                        (f"d_model = {D}", float(D)), ("1 (no scaling)", 1.0)):
            if isclose(c, s, rtol=1e-4, atol=0.0):
                raise Fail(f"weights for {where} are softmax(q k^T / c) with c = {name}; divide the scores by "
                           f"{right}: each head's dot products run over d_head features")
        raise Fail(f"weights for {where} are softmax(q k^T / c) with c = {fmt(c)}; divide the scores by {right}")


def _well_formed(got, B, T, D, H):
    return got is not None and got[0].shape == (B, T, D) and got[1].shape == (B, H, T, T)


@invariant("single-head", "with n_heads=1, causal_mha is single-head causal attention")
def single_head(cand, ref, rng):
    ctx = "single-head causal attention: softmax(q k^T / sqrt(d_model)) with the future masked"
    for B, T, D in ((2, 5, 8), (1, 7, 12), (3, 1, 16), (2, 7, 16), (2, 1, 12)):
        x, Ws = _problem(rng, B, T, D)
        # What only n_heads=1 gets wrong is judged here; a mistake the candidate makes with two heads as well (a
        # crash, a shape, the mask, the scale) is for the other checks.
        two = _mha_loose(cand, x, Ws, 2)
        if not _well_formed(two, B, T, D, 2):
            continue
        try:
            y, w, where = _mha(cand, x, Ws, 1)  # a crash or a shape only with n_heads=1 fails here
        except Fail as exc:
            raise Fail(f"{exc}; with n_heads=2 the same call returns the contract's shapes, so only n_heads=1 goes "
                       "wrong: do not special-case it, one head is the general code with n_heads=1") from None
        if T == 1:
            # One position attends only to itself whatever the scores: y = x @ W_v @ W_o, nothing else.
            if np.isfinite(y).all():
                check_close(y, x @ Ws[2] @ Ws[3], f"y for {where}",
                            context="a single position attends only to itself, so single-head attention gives "
                                    "y = x @ W_v @ W_o (q = x @ W_q, k = x @ W_k, v = x @ W_v: x on the left)")
            continue
        y2, w2, _ = two
        y_ref, w_ref = ref.causal_mha(x, *Ws, 2)
        if not (allclose(w2, w_ref, rtol=1e-6, atol=1e-9) and allclose(y2, y_ref, rtol=1e-6, atol=1e-9)):
            continue  # wrong with two heads as well: for the other checks
        y1, w1 = _single_head(x, *Ws)
        ctx2 = f"{ctx}; the same call with n_heads=2 is right"
        check_close(w[:, 0], w1, f"weights[:, 0] for {where}", context=ctx2)
        check_close(y, y1, f"y for {where}", context=ctx2 + ", times v, times W_o")


@invariant("matches-reference", "y and weights match a reference to rtol 1e-6, scores near 1e4 and "
                                 "T = 1,031 included")
def matches_reference(cand, ref, rng):
    for B, T, D, H in CASES:
        for s in (0.5, 2.0):
            x, Ws = _problem(rng, B, T, D, scale=s)
            y, w, where = _mha(cand, x, Ws, H)
            y_ref, w_ref = ref.causal_mha(x, *Ws, H)
            check_close(w, w_ref, f"weights for {where}")
            check_close(y, y_ref, f"y for {where}")
    x, Ws = _problem(rng, 2, 7, 16, scale=100.0)
    spread = x * 10.0 ** rng.uniform(-2, 0, size=(2, 7, 1))
    for name, xs in (("scores near 1e4", x), ("positions at very different scales", spread)):
        y, w, where = _mha(cand, xs, Ws, 4)
        check_finite(w, f"weights for {where}", name)
        check_finite(y, f"y for {where}", name)
        y_ref, w_ref = ref.causal_mha(xs, *Ws, 4)
        check_close(w, w_ref, f"weights for {where}", context=name)
        check_close(y, y_ref, f"y for {where}", context=name)
    # Every score thousands below 0, then about -1e4 (see uniform_score_shift); and a position of zeros, whose
    # query, key and value are zeros, so its scores are exactly 0 (see with_zero_rows).
    for low, hd in low_shifts(4):
        _, (xs, *Ws) = uniform_score_shift(rng, 2, 6, 2 * hd, 2, hd, shift=low)
        y, w, where = _mha(cand, xs, Ws, 2)
        y_ref, w_ref = ref.causal_mha(xs, *Ws, 2)
        name = (f"every score shifted by {low:,.0f}, so no score anywhere is large and positive: always subtract "
                f"each row's maximum before np.exp, and {fill_before_scale(hd, 'd_head')}")
        check_close(w, w_ref, f"weights for {where}", context=name)
        check_close(y, y_ref, f"y for {where}", context=name)
    x, Ws = _problem(rng, 2, 6, 8, scale=1.0)
    x, t = with_zero_rows(rng, x)
    y, w, where = _mha(cand, x, Ws, 2)
    y_ref, w_ref = ref.causal_mha(x, *Ws, 2)
    name = f"position {t} of x is all zeros, so its scores are exactly 0; {ZERO_SCORES}"
    check_close(w, w_ref, f"weights for {where}", context=name)
    check_close(y, y_ref, f"y for {where}", context=name)
    # Each row's largest score at a random key j <= i, up to about 1e4 and far above the rest of the row, in
    # every head: a softmax shifted by the diagonal's score, the first key's or the row mean overflows here.
    for B, T, D, H in ((2, 12, 16, 4), (1, 10, 8, 1)):
        x, Ws, scores = peaked_self_attention(rng, B, T, D, H, D // H)
        y, w, where = _mha(cand, x, Ws, H)
        bad = ~np.isfinite(w)
        if bad.any():
            b, h, i, j = (int(v) for v in np.argwhere(bad)[0])
            raise Fail(f"weights[{b}, {h}, {i}, {j}] for {where} is {fmt(w[b, h, i, j])} (overflow or 0/0), with W_q "
                       f"and W_k chosen so that {peak_text(scores[b], (i,))} in every head: subtract each row's own "
                       "maximum over the keys it may see (axis=-1, keepdims=True) before np.exp")
        y_ref, w_ref = ref.causal_mha(x, *Ws, H)
        name = "each row's largest score at a random key j <= i, up to about 1e4 and far above the rest of the row"
        check_close(w, w_ref, f"weights for {where}", context=name)
        check_close(y, y_ref, f"y for {where}", context=name)
    # Long sequences: code that changes precision or method above some length (float32 for long inputs) is right
    # on every problem above. Scores of about +-25 make float32's rounding show well above rtol 1e-6.
    watch = Stopwatch()

    def long(rung):
        T, D, H = rung.value, 2, 1
        x = normal(rng, (1, T, D))
        Ws = tuple(normal(rng, (D, D), scale=5.0 / np.sqrt(D)) for _ in range(4))
        want = meanwhile(ref.causal_mha, x, *Ws, H)
        with watch:
            y, w, where = _mha(cand, x, Ws, H)
        y_ref, w_ref = want()
        check_close_fast(w, w_ref, f"weights for {where}")
        check_close_fast(y, y_ref, f"y for {where}")

    up_to_long(long, watch)


@invariant("bad-input", "causal_mha raises ValueError when d_model is not a multiple of n_heads")
def bad_input(cand, ref, rng):
    for B, T, D, H in BAD_HEADS:
        x, Ws = _problem(rng, B, T, D)
        expect_raises(cand, "ValueError", "causal_mha", x, *Ws, H,
                      what=f"causal_mha with d_model={D} and n_heads={H} ({D} % {H} = {D % H})")


def _causal_mha_unchanged(cand, x, Ws, H, where):
    names = ("x", "W_q", "W_k", "W_v", "W_o")
    for call in (1, 2):
        _, after, _ = _call(cand, "causal_mha", where, x, *Ws, H, track=True)
        for name, before, now in zip(names, (x, *Ws), after[:5], strict=True):
            check_unchanged(before, now, f"{name} of shape {shape_of(before)} (call {call} of causal_mha)")

    try:
        results = cand.repeat(3, "causal_mha", x, *Ws, H)
    except CandidateError as err:
        if err.not_implemented:
            raise
        raise CandidateError(f"causal_mha called 3 times on {where}", err.type_name, err.mro, err.text,
                             err.line) from None
    first_y = as_float(unpack(results[0], 2, "causal_mha")[0], f"y for {where}")
    for n, result in enumerate(results[1:], start=2):
        y = as_float(unpack(result, 2, "causal_mha")[0], f"y for {where}")
        check_shape(y, first_y.shape, f"y of call {n} for {where}")
        idx = worst_entry(y, first_y, 1e-12, 0.0)
        if idx is not None:
            raise Fail(f"call {n} of causal_mha on the same arrays ({where}) returned y[{_idx(idx)}] = "
                       f"{fmt(y[idx])}, but call 1 returned {fmt(first_y[idx])}: an earlier call changed x or a W "
                       f"in place, or kept state between calls")


@invariant("input-unchanged", "x and the four weight matrices are not modified, over repeated calls")
def input_unchanged(cand, ref, rng):
    B, T, D, H = 2, 5, 12, 2
    x, Ws = _problem(rng, B, T, D)
    where = _where(x, H)
    # A causal_mha that raises on these ordinary inputs is for `shape` to report: only split_heads and merge_heads
    # are then judged here.
    if not isinstance(attempt(_call, cand, "causal_mha", where, x.copy(), *(W.copy() for W in Ws), H), Broke):
        _causal_mha_unchanged(cand, x, Ws, H, where)

    # Every call of every check is also judged for changes in place (the long rung of matches-reference among
    # them); here the sizes that take other code paths once more: one sequence of one position with one head, and
    # heads of width 1.
    for B2, T2, D2, H2 in ((1, 1, 8, 1), (3, 6, 8, 8)):
        x2, Ws2 = _problem(rng, B2, T2, D2)
        got = attempt(_call, cand, "causal_mha", _where(x2, H2), x2, *Ws2, H2, track=True)
        if isinstance(got, Broke):
            continue  # a crash on these sizes is for `shape` and the others to report
        for name, before, now in zip(("x", "W_q", "W_k", "W_v", "W_o"), (x2, *Ws2), got[1][:5], strict=True):
            check_unchanged(before, now, f"{name} of shape {shape_of(before)} (causal_mha on {_where(x2, H2)})")

    heads = rng.normal(size=(B, H, T, D // H))
    for fn, args, label in (("split_heads", (x, H), f"x of shape {shape_of(x)}"),
                            ("split_heads", (x[:1, :1], 1), f"x of shape {shape_of(x[:1, :1])}"),
                            ("merge_heads", (heads,), f"x of shape {shape_of(heads)}"),
                            ("merge_heads", (heads[:1, :1, :1],), f"x of shape {shape_of(heads[:1, :1, :1])}")):
        _, after, _ = _call(cand, fn, label, *args, track=True)
        check_unchanged(args[0], after[0], f"{label} (passed to {fn})")


# -- known mistakes, recognised by behaviour on these probes --------------------------

def probes(rng):
    yield "split_heads", (rng.normal(size=(2, 5, 16)), 4), {}
    yield "merge_heads", (rng.normal(size=(2, 4, 5, 4)),), {}
    x, Ws = _problem(rng, 2, 5, 12, scale=1.5)
    yield "causal_mha", (x, *Ws, 2), {}
    x, Ws = _problem(rng, 2, 7, 16, scale=100.0)
    yield "causal_mha", (x, *Ws, 4), {}
    # scores near -1e4 in every head: a finite fill of -1e4 leaks into the future here
    x, Ws = _big_scores(rng, 2, 6, 8, 2, rising=False)
    yield "causal_mha", (x, *Ws, 2), {}


def _variant(x, W_q, W_k, W_v, W_o, n_heads, *, divide_by=None, first_masked=1, fill=-np.inf, axis=-1,
             subtract_max=True, mask_after=False, seq_first=False):
    """causal_mha with one known mistake switched on."""
    B, T, D = x.shape
    dh = D // n_heads
    if seq_first:
        q, k, v = ((x.reshape(B * T, D) @ W).reshape(T, B, n_heads, dh).transpose(1, 2, 0, 3)
                   for W in (W_q, W_k, W_v))
    else:
        q, k, v = ((x @ W).reshape(B, T, n_heads, dh).transpose(0, 2, 1, 3) for W in (W_q, W_k, W_v))
    s = q @ np.swapaxes(k, -1, -2) / (np.sqrt(dh) if divide_by is None else divide_by(D, dh))
    blocked = np.triu(np.ones((T, T), dtype=bool), k=first_masked)
    if not mask_after:
        s = np.where(blocked, fill, s)
    e = np.exp(s - s.max(axis=axis, keepdims=True) if subtract_max else s)
    w = e / e.sum(axis=axis, keepdims=True)
    if mask_after:
        w = np.where(blocked, 0.0, w)
    out = w @ v
    if seq_first:
        return (out.transpose(2, 0, 1, 3).reshape(B * T, D) @ W_o).reshape(B, T, D), w
    return out.transpose(0, 2, 1, 3).reshape(B, T, D) @ W_o, w


@mistake("split-without-transpose", "reshape to (B, T, n_heads, d_head) first, then swap axes 1 and 2; a reshape "
         "straight to (B, n_heads, T, d_head) hands each head slices of several positions", fn="split_heads")
def _split_without_transpose(x, n_heads):
    B, T, D = x.shape
    return x.reshape(B, n_heads, T, D // n_heads)


@mistake("merge-without-transpose", "swap the head and position axes back (transpose(0, 2, 1, 3)) before the "
         "reshape to (B, T, d_model)", fn="merge_heads")
def _merge_without_transpose(x):
    B, H, T, dh = x.shape
    return x.reshape(B, T, H * dh)


@mistake("scale-by-d-model", "divide the scores by sqrt(d_head), the width of one head, not sqrt(d_model)",
         fn="causal_mha")
def _scale_by_d_model(x, W_q, W_k, W_v, W_o, n_heads):
    return _variant(x, W_q, W_k, W_v, W_o, n_heads, divide_by=lambda D, dh: np.sqrt(D))


@mistake("scale-by-d-head", "divide the scores by sqrt(d_head), not by d_head itself", fn="causal_mha")
def _scale_by_d_head(x, W_q, W_k, W_v, W_o, n_heads):
    return _variant(x, W_q, W_k, W_v, W_o, n_heads, divide_by=lambda D, dh: float(dh))


@mistake("no-scale", "divide the scores by sqrt(d_head) before the softmax", fn="causal_mha")
def _no_scale(x, W_q, W_k, W_v, W_o, n_heads):
    return _variant(x, W_q, W_k, W_v, W_o, n_heads, divide_by=lambda D, dh: 1.0)


@mistake("mask-includes-diagonal", "mask only the positions strictly above the diagonal (np.triu(..., k=1)); "
         "every position attends to itself", fn="causal_mha")
def _mask_includes_diagonal(x, W_q, W_k, W_v, W_o, n_heads):
    return _variant(x, W_q, W_k, W_v, W_o, n_heads, first_masked=0)


@mistake("mask-includes-diagonal", "mask only the positions strictly above the diagonal (np.triu(..., k=1)); "
         "every position attends to itself", fn="causal_mha")
def _mask_includes_diagonal_finite(x, W_q, W_k, W_v, W_o, n_heads):
    return _variant(x, W_q, W_k, W_v, W_o, n_heads, first_masked=0, fill=-1e9)


@mistake("batch-of-one", "keep the batch axis throughout: this computes only x[0] and drops the other "
         "sequences", fn="causal_mha")
def _batch_of_one(x, W_q, W_k, W_v, W_o, n_heads):
    return _variant(x[:1], W_q, W_k, W_v, W_o, n_heads)


@mistake("softmax-over-queries", "take the softmax over the keys, the last axis (axis=-1), not axis -2",
         fn="causal_mha")
def _softmax_over_queries(x, W_q, W_k, W_v, W_o, n_heads):
    return _variant(x, W_q, W_k, W_v, W_o, n_heads, axis=-2)


@mistake("mask-after-softmax", "mask the scores with -inf before the softmax; zeroing weights afterwards leaves "
         "rows that no longer sum to one", fn="causal_mha")
def _mask_after_softmax(x, W_q, W_k, W_v, W_o, n_heads):
    return _variant(x, W_q, W_k, W_v, W_o, n_heads, mask_after=True)


@mistake("no-max-subtraction", "subtract each row's maximum from the scores before np.exp: scores near 1e4 "
         "overflow", fn="causal_mha")
def _no_max_subtraction(x, W_q, W_k, W_v, W_o, n_heads):
    return _variant(x, W_q, W_k, W_v, W_o, n_heads, subtract_max=False)


@mistake("global-max", "subtract each row's own maximum (axis=-1, keepdims=True), not one maximum of all the "
         "scores: a row far below it underflows to 0/0", fn="causal_mha")
def _global_max(x, W_q, W_k, W_v, W_o, n_heads):
    B, T, D = x.shape
    q, k, v = ((x @ W).reshape(B, T, n_heads, D // n_heads).transpose(0, 2, 1, 3) for W in (W_q, W_k, W_v))
    s = np.where(np.triu(np.ones((T, T), dtype=bool), k=1), -np.inf,
                 q @ np.swapaxes(k, -1, -2) / np.sqrt(D // n_heads))
    e = np.exp(s - s.max())
    w = e / e.sum(axis=-1, keepdims=True)
    return (w @ v).transpose(0, 2, 1, 3).reshape(B, T, D) @ W_o, w


@mistake("mask-fill-too-small", "fill the future with -np.inf (or -1e9), not -1e4: next to scores of about 1e4 "
         "a fill of -1e4 leaves the future with weight", fn="causal_mha")
def _mask_fill_1e4(x, W_q, W_k, W_v, W_o, n_heads):
    return _variant(x, W_q, W_k, W_v, W_o, n_heads, fill=-1e4)


@mistake("batch-mixed-by-reshape", "after flattening to (B*T, d_model), reshape back as (B, T, ...), not "
         "(T, B, ...): the rows are batch-major", fn="causal_mha")
def _batch_mixed_by_reshape(x, W_q, W_k, W_v, W_o, n_heads):
    return _variant(x, W_q, W_k, W_v, W_o, n_heads, seq_first=True)


_first_probes = probes


def probes(rng):  # noqa: F811 -- the first probes, then a head count that does not divide d_model, and one head
    yield from _first_probes(rng)
    x, Ws = _problem(rng, 2, 5, 12)
    yield "causal_mha", (x, *Ws, 5), {}
    x, Ws = _problem(rng, 2, 4, 8)
    yield "causal_mha", (x, *Ws, 1), {}


def _core(x, W_q, W_k, W_v, W_o, n_heads, *, interleave=False, k_t=None, blocked=None, fill=-np.inf, shift=None,
          weights=None, softmax_dtype=np.float64):
    """causal_mha with one known mistake switched on (a head count that does not divide d_model drops features)."""
    x = np.asarray(x, dtype=np.float64)
    B, T, D = x.shape
    dh = D // n_heads
    used = n_heads * dh
    if interleave:
        def split(a):
            return a[..., :used].reshape(B, T, dh, n_heads).transpose(0, 3, 1, 2)

        def merge(a):
            return a.transpose(0, 2, 3, 1).reshape(B, T, used)
    else:
        def split(a):
            return a[..., :used].reshape(B, T, n_heads, dh).transpose(0, 2, 1, 3)

        def merge(a):
            return a.transpose(0, 2, 1, 3).reshape(B, T, used)
    q, k, v = (split(x @ W) for W in (W_q, W_k, W_v))
    s = q @ (np.swapaxes(k, -1, -2) if k_t is None else k_t(k)) / np.sqrt(dh)
    mask = np.triu(np.ones((T, T), dtype=bool), 1) if blocked is None else blocked(T, dh)
    m = np.where(mask, fill, s).astype(softmax_dtype)
    e = np.exp(m - (m.max(axis=-1, keepdims=True) if shift is None else shift(m)))
    w = (e / e.sum(axis=-1, keepdims=True)).astype(np.float64)
    y = merge(w @ v) @ W_o[:used]
    return y, (w if weights is None else weights(w, s))


def _divisible(x, n_heads, error):
    if np.shape(x)[-1] % n_heads:
        raise error("n_heads must divide d_model")


@mistake("assert-divisible", "raise ValueError when n_heads does not divide d_model; an assert raises "
         "AssertionError and vanishes under python -O", fn="causal_mha")
def _assert_divisible(x, W_q, W_k, W_v, W_o, n_heads):
    _divisible(x, n_heads, AssertionError)
    return _core(x, W_q, W_k, W_v, W_o, n_heads)


@mistake("drops-features", "raise ValueError when n_heads does not divide d_model, instead of silently dropping "
         "the last d_model % n_heads features", fn="causal_mha")
def _drops_features(x, W_q, W_k, W_v, W_o, n_heads):
    return _core(x, W_q, W_k, W_v, W_o, n_heads)


def _checked(**switches):
    def causal_mha(x, W_q, W_k, W_v, W_o, n_heads):
        _divisible(x, n_heads, ValueError)
        return _core(x, W_q, W_k, W_v, W_o, n_heads, **switches)
    return causal_mha


_mistake_shift_diagonal = mistake(
    "shift-by-diagonal", "subtract each row's maximum before np.exp, not its diagonal score: a larger score in the "
    "row still overflows", fn="causal_mha")(_checked(shift=lambda m: np.diagonal(m, axis1=-2, axis2=-1)[..., None]))
_mistake_shift_first_key = mistake(
    "shift-by-first-key", "subtract each row's maximum before np.exp, not the first key's score: a larger score in "
    "the row still overflows", fn="causal_mha")(_checked(shift=lambda m: m[..., :1]))
_mistake_per_head_max = mistake(
    "per-head-max", "subtract each row's own maximum (axis=-1, keepdims=True), not one per head: a row far below "
    "its head's maximum underflows to 0/0", fn="causal_mha")(_checked(shift=lambda m: m.max(axis=(-2, -1),
                                                                                               keepdims=True)))
_mistake_interleaved = mistake(
    "interleaved-heads", "reshape to (B, T, n_heads, d_head), not (B, T, d_head, n_heads): each head owns d_head "
    "consecutive features, not every n_heads-th one", fn="causal_mha")(_checked(interleave=True))
_mistake_k_dot_t = mistake(
    "k-dot-T-4d", "transpose k with np.swapaxes(k, -1, -2): k.T on a 4-D array reverses all four axes",
    fn="causal_mha")(_checked(k_t=lambda k: k.T))
_mistake_mask_from_d_head = mistake(
    "mask-from-d-head", "build the causal mask from the sequence length T, not from d_head", fn="causal_mha")(
    _checked(blocked=lambda T, dh: np.triu(np.ones((dh, dh), dtype=bool), 1)))
_mistake_mask_past = mistake(
    "mask-blocks-past", "block the future, np.triu(..., k=1), not the past: a position sees itself and earlier "
    "ones", fn="causal_mha")(_checked(blocked=lambda T, dh: np.tril(np.ones((T, T), dtype=bool), -1)))
_mistake_keep_as_blocked = mistake(
    "keep-mask-as-blocked", "np.tril(ones) marks the positions to keep: fill where it is False (or use "
    "np.triu(..., k=1) as the blocked mask), not where it is True", fn="causal_mha")(
    _checked(blocked=lambda T, dh: np.tril(np.ones((T, T), dtype=bool)), fill=-1e9))
_mistake_softmax_float32 = mistake(
    "softmax-in-float32", "compute the softmax in float64, as its inputs are: float32 keeps about 7 digits, so "
    "scores in the thousands lose digits the tolerance needs (torch: leave out .float())", fn="causal_mha")(
    _checked(softmax_dtype=np.float32))
_mistake_head_averaged = mistake(
    "head-averaged-weights", "return the weights of every head, shape (B, n_heads, T, T), not their mean over the "
    "heads", fn="causal_mha")(_checked(weights=lambda w, s: w.mean(axis=1)))


def _row_softmax(s):
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


_mistake_weights_unmasked = mistake(
    "weights-before-mask", "return the weights of the masked scores, the ones y uses, not the softmax of the "
    "unmasked scores", fn="causal_mha")(_checked(weights=lambda w, s: _row_softmax(s)))


@mistake("linear-transposed", "project with x @ W (the contract's q = x @ W_q and y = ... @ W_o), not x @ W.T",
         fn="causal_mha")
def _linear_transposed(x, W_q, W_k, W_v, W_o, n_heads):
    _divisible(x, n_heads, ValueError)
    return _core(x, W_q.T, W_k.T, W_v.T, W_o.T, n_heads)


@mistake("scale-folded-in-place", "scale a copy (W_q / sqrt(d_head)) or the scores, not W_q with /=, which changes "
         "the caller's matrix on every call", fn="causal_mha")
def _scale_in_place(x, W_q, W_k, W_v, W_o, n_heads):
    _divisible(x, n_heads, ValueError)
    out = _core(x, W_q, W_k, W_v, W_o, n_heads)
    W_q /= np.sqrt(np.shape(x)[-1] // n_heads)
    return out


@mistake("single-head-shortcut", "keep the head axis when n_heads is 1: the weights are (B, 1, T, T), not (B, T, T)",
         fn="causal_mha")
def _mistake_single_head(x, W_q, W_k, W_v, W_o, n_heads):
    _divisible(x, n_heads, ValueError)
    y, w = _core(x, W_q, W_k, W_v, W_o, n_heads)
    return y, (w[:, 0] if n_heads == 1 else w)


@mistake("squeezes-batch", "keep the batch axis: squeezing x to a (T, d_model) matrix works only for a batch of "
         "one", fn="causal_mha")
def _squeezes_batch(x, W_q, W_k, W_v, W_o, n_heads):
    T, D = np.squeeze(np.asarray(x)).shape
    _divisible(x, n_heads, ValueError)
    return _core(x, W_q, W_k, W_v, W_o, n_heads)
