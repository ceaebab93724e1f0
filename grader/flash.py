"""Hidden checks for the `flash` exercise."""

import numpy as np

from attnprep.grading import (
    Broke,
    CandidateError,
    Fail,
    allclose,
    as_float,
    attempt,
    check_close,
    check_shape,
    check_unchanged,
    fmt,
    fmt_pair,
    invariant,
    isclose,
    mistake,
    shape_of,
    softmax_divisor,
    worst_entry,
)
from attnprep.ladders import at_rung, causal_allowed, count, f32_exact, normal, peaked_rows, scores_as_qk

FUNCTIONS = ("flash_attention",)

MIB = 2 ** 20
# The memory check: calls at T = 4096 against one T x T float64 matrix (128 MiB). Each call runs in a fresh
# worker whose peak resident memory the kernel accounts for and attnprep reads from outside it
# (Candidate.call_traced), so tracemalloc.reset_peak() or stopping tracemalloc changes nothing. What counts is
# the growth over the worker's own start-up: the inputs, the file's import and the call. That worker's allocator
# returns every large block when it is freed, so the growth is what the call held at once: correct solutions
# grow by 6 MiB ((block, block) tiles) to 12 MiB ((T, block) strips of scores), in NumPy and PyTorch alike; a
# T x T float64 matrix by 128 MiB, a T x T bool mask by 16.
MEM_T, MEM_D, MEM_DV, MEM_BLOCK = 4096, 16, 8, 64
MEM_LIMIT = MEM_T * MEM_T * 8 * 3 // 8  # 48 MiB, three eighths of the matrix (a float32 one is half of it)
MEM_MASK_EXTRA = MEM_T * MEM_T // 2  # 8 MiB, half of one T x T bool mask
MEM_SMALL_T = 1000  # below the 1,024 a dense fallback for "small" inputs is often given


def _dense(q, k, v, causal=False):
    """Plain softmax(q k^T / sqrt(d)) v, the checks' own model."""
    s = q @ k.T / np.sqrt(q.shape[1])
    if causal:
        s = np.where(np.triu(np.ones(s.shape, dtype=bool), 1), -np.inf, s)
    w = np.exp(s - s.max(axis=1, keepdims=True))
    return (w / w.sum(axis=1, keepdims=True)) @ v


def _inputs(rng, T, d, d_v, scale=1.0):
    return rng.normal(scale=scale, size=(T, d)), rng.normal(scale=scale, size=(T, d)), rng.normal(size=(T, d_v))


def _label(q, v, block_size, causal):
    return (f"flash_attention(q, k of shape {shape_of(q)}, v of shape {shape_of(v)}, block_size={block_size}, "
            f"causal={causal})")


def _run(cand, q, k, v, block_size, causal=False):
    label = _label(q, v, block_size, causal)
    out = as_float(cand.flash_attention(q, k, v, block_size=block_size, causal=causal), label)
    check_shape(out, (q.shape[0], v.shape[1]), label)
    return out, label


def _close(a, b):
    return a.shape == b.shape and bool(allclose(a, b, rtol=1e-6, atol=1e-9))


def _first_bad_row(got, want):
    bad = ~isclose(got, want, rtol=1e-6, atol=1e-9, equal_nan=True)
    rows = np.flatnonzero(bad.any(axis=1))
    return int(rows[0]) if len(rows) else None


@invariant("shape", "the output has shape (T, d_v)")
def shape(cand, ref, rng):
    for T, d, d_v, bs in ((12, 4, 3, 4), (5, 6, 2, 8), (1, 3, 5, 64), (20, 2, 7, 6)):
        for causal in (False, True):
            _run(cand, *_inputs(rng, T, d, d_v), bs, causal)


@invariant("block-size-independent", "block sizes 1, 7, 64 and T give the same result")
def block_size_independent(cand, ref, rng):
    T, d, d_v = 50, 6, 4
    for causal_ in (False, True):
        q, k, v = _inputs(rng, T, d, d_v, scale=1.5)
        whole, whole_label = _run(cand, q, k, v, T, causal_)
        for bs in (1, 7, 64):
            out, label = _run(cand, q, k, v, bs, causal_)
            row = _first_bad_row(out, whole)
            if row is None:
                continue
            col = int(np.argmax(np.abs(out[row] - whole[row])))
            shown, whole_shown = fmt_pair(float(out[row, col]), float(whole[row, col]))
            msg = (f"{label} gives out[{row}, {col}] = {shown}, but block_size={T} (one block holding "
                   f"all T={T} keys) gives {whole_shown}: the result must not depend on how the keys are "
                   "split")
            kept = T - T % bs
            if T % bs and kept and _close(out[:kept], _dense(q[:kept], k[:kept], v[:kept], causal_)):
                msg += (f". T={T} is not a multiple of {bs} and the last {T % bs} keys were left out: the final, "
                        "partial block counts too")
            elif causal_:
                msg += (". With causal=True, mask key j for query i when j > i in global positions (tile start + "
                        "offset); and whenever a tile raises a row's running max, rescale the running sum and the "
                        "accumulator by exp(m_old - m_new)")
            else:
                msg += (". Whenever a tile raises a row's running max, rescale the running sum and the accumulator "
                        "by exp(m_old - m_new)")
            raise Fail(msg)


@invariant("ragged-blocks", "T not a multiple of block_size: the last, partial block counts")
def ragged_blocks(cand, ref, rng):
    # The same problem padded to whole blocks with keys no real query may use (scoring about -60 through one
    # extra feature, and in the future too when causal) must give the same first T rows. Both calls run the same
    # blocks, so a mistake elsewhere (the rescaling, the scale) shows in both alike. A candidate right on the
    # padded problem is held to the model; otherwise to itself, but only without the causal mask, where no row
    # can be fully masked (a mask mistake that spreads such a row over every key is `causal`'s business).
    for T, d, d_v, bs, causal_ in ((10, 4, 3, 4, False), (13, 6, 5, 5, False), (3, 4, 2, 8, False),
                                   (9, 3, 7, 8, False), (11, 5, 2, 4, True)):
        q, k, v = _inputs(rng, T, d, d_v)
        q, k = np.hstack([q, np.ones((T, 1))]), np.hstack([k, np.zeros((T, 1))])  # the extra feature: 0 for real keys
        label = _label(q, v, bs, causal_)
        out = as_float(cand.flash_attention(q, k, v, block_size=bs, causal=causal_), label)
        tail = T % bs
        whole = T - tail
        ctx = f"T={T} is not a multiple of block_size={bs}: the last block holds only {tail} rows"
        if out.ndim == 2 and out.shape[0] == whole and out.shape[0] != T:
            raise Fail(f"{label} returned {out.shape[0]} rows instead of T={T}; {ctx} and must be processed too")
        check_shape(out, (T, d_v), label)
        n = T + bs - tail
        extra = n - T
        q_pad = np.vstack([q, np.hstack([rng.normal(size=(extra, d)), np.ones((extra, 1))])])
        k_pad = np.vstack([k, np.hstack([np.zeros((extra, d)), np.full((extra, 1), -60.0 * np.sqrt(d + 1))])])
        v_pad = np.vstack([v, rng.normal(size=(extra, d_v))])
        padded = attempt(_run, cand, q_pad, k_pad, v_pad, bs, causal_)
        if isinstance(padded, Broke):
            continue  # it fails on whole blocks too: not a partial-block mistake
        if _close(padded[0], _dense(q_pad, k_pad, v_pad, causal_)):
            want = _dense(q, k, v, causal_)
            ctx += f"; the same problem padded to T={n}, whole blocks, comes out right"
        elif not causal_:
            want = padded[0][:T]
            ctx += (f"; the same call padded to T={n} with {extra} keys scoring about -60 against every real query "
                    "(so they take no weight) gives other values for these rows: the partial block is handled "
                    "differently from a whole one")
        else:
            continue
        if _close(out, want):
            continue
        if whole and _close(out[:whole], _dense(q[:whole], k[:whole], v[:whole], causal_)) \
                and not _close(out[:whole], want[:whole]):
            raise Fail(f"{label} never attends to the last {tail} keys; {ctx}: loop over ceil(T / block_size) "
                       "blocks, e.g. range(0, T, block_size) with end = min(start + block_size, T)")
        check_close(out, want, label, context=ctx)


@invariant("causal", "causal=True: row i attends to keys 0..i only, across block boundaries")
def causal(cand, ref, rng):
    # Judged on the candidate alone: the future must not matter (changing it leaves rows 0..t-1 alone) and every
    # key 0..i must get weight (v = identity makes out[i, j] the weight query i gives key j). How the weights of
    # the visible keys are computed (the scale, the rescaling, the final divide) is for the other invariants.
    for T, d, d_v, bs in ((20, 4, 3, 6), (17, 5, 2, 4), (8, 3, 4, 8), (1, 2, 3, 4), (12, 4, 5, 1)):
        q, k, v = _inputs(rng, T, d, d_v)
        out, label = _run(cand, q, k, v, bs, causal=True)
        empty = np.flatnonzero(~np.isfinite(out).all(axis=1))
        if len(empty) and bs < T:
            # finite with one block holding every key: a 0/0 of the tiling (say, a fully masked tile without a
            # running max), which block-size-independent reports; only rows empty in one block too are judged here
            one, _ = _run(cand, q, k, v, T, causal=True)
            empty = empty[~np.isfinite(one[empty]).all(axis=1)]
        if len(empty):
            i = int(empty[0])
            raise Fail(f"{label}: row {i} is {np.round(out[i], 4).tolist()}, a 0/0: query {i} attended to no key at "
                       f"all. Query i attends to keys 0..i, itself included: mask j > i (not j >= i), and visit "
                       f"the key tile that holds key i (for the tile of queries {i // bs * bs}..., the key tile "
                       f"starting at {i // bs * bs})")
        # A mask that also covers the diagonal, filled with a finite -1e9: row 0 then spreads over every key.
        diag = np.where(np.triu(np.ones((T, T), dtype=bool)), -1e9, q @ k.T / np.sqrt(d))
        diag = np.exp(diag - diag.max(axis=1, keepdims=True))
        if T > 1 and _close(out, (diag / diag.sum(axis=1, keepdims=True)) @ v):
            raise Fail(f"{label}: the mask also covers the diagonal (j >= i), so query 0 has no key left and "
                       "spreads over the whole sequence; query i attends to keys 0..i, itself included: mask j > i")
        # The future may not matter: change every key and value from position t on.
        t = T // 2
        if t:
            k2, v2 = k.copy(), v.copy()
            k2[t:] = rng.normal(size=k2[t:].shape)
            v2[t:] = rng.normal(size=v2[t:].shape)
            out2, _ = _run(cand, q, k2, v2, bs, causal=True)
            row = _first_bad_row(out2[:t], out[:t])
            if row is not None:
                raise Fail(f"{label}: row {row} changed (from {np.round(out[row], 4).tolist()} to "
                           f"{np.round(out2[row], 4).tolist()}) when only keys and values {t}..{T - 1} changed, so "
                           f"row {row} attends to the future. Mask key j for query i when j > i in GLOBAL positions "
                           "(block start + offset), not by offsets within the block")
        # Every key 0..i must count: v = identity reads the weights off the output.
        # On a whole number of blocks: a partial last block is ragged-blocks' business.
        T = T - T % bs
        if T == 0:
            continue
        q, k = q[:T], k[:T]
        w, wlabel = _run(cand, q, k, np.eye(T), bs, causal=True)
        wlabel = f"{wlabel} with v = identity, so that out[i, j] is the weight query i gives key j"
        lost = np.tril(np.ones((T, T), dtype=bool)) & np.isfinite(w).all(axis=1)[:, None] & ~(w > 0)
        if lost.any():
            i, j = (int(x) for x in np.argwhere(lost)[0])
            raise Fail(f"{wlabel}: out[{i}, {j}] is {fmt(w[i, j])}, so query {i} ignores key {j} <= {i}: query i "
                       f"attends to every key 0..i; mask only j > i, and visit every key tile up to and including "
                       f"the one holding key i (for query {i}, the key tiles starting at 0..{i // bs * bs})")


@invariant("scale", "scores are q k^T / sqrt(d), d the width of q and k (not sqrt(d_v), not d itself, not "
                    "unscaled)")
def scale(cand, ref, rng):
    # v = [identity | zeros] makes out[:, :T] the attention weights themselves; the divisor is read from the
    # ratios of the weights within a row, so a missing final divide, a dropped or masked key does not disturb it.
    # One block holds all T keys: the scale does not depend on the tiling, and tiling slips stay out of it.
    for T, d, d_v in ((9, 4, 13), (7, 9, 11), (6, 25, 8)):
        q, k, _ = _inputs(rng, T, d, 1, scale=1.5)
        v = np.hstack([np.eye(T), np.zeros((T, d_v - T))])
        out, label = _run(cand, q, k, v, T)
        label = f"{label} with v = [identity | zeros], so that out[:, :{T}] holds the attention weights"
        right = float(np.sqrt(d))
        c = softmax_divisor(out[:, :T], q @ k.T)
        if c is None:
            raise Fail(f"{label}: no single divisor c makes them softmax(q k^T / c) over the keys of a row (judged "
                       "from the ratios of the weights each row gives its keys), so the scale cannot be judged on "
                       "its own; fix the other failures first")
        if isclose(c, right, rtol=1e-4, atol=0.0):
            continue
        guesses = {"1 (no scaling)": 1.0, f"d = {d}, not sqrt(d)": float(d),
                   f"sqrt(d_v) = sqrt({d_v}), the width of v": np.sqrt(d_v), f"d_v = {d_v}": float(d_v),
                   f"sqrt(T) = sqrt({T}), the sequence length": np.sqrt(T),
                   f"1/sqrt(d) = {fmt(1 / right)} (multiplied by sqrt(d) instead of divided)": 1.0 / right}
        named = next((name for name, div in guesses.items() if isclose(c, div, rtol=1e-4, atol=0.0)), None)
        raise Fail(f"{label}: the weights are softmax(q k^T / c) with c = {fmt(c)}, so the scores were divided by "
                   f"{named or fmt(c)}; divide q k^T by sqrt(d) = sqrt({d}) = {fmt(right)}, d the width of q and k")


@invariant("constant-values", "every output row is a weighted average: constant value rows come back unchanged")
def constant_values(cand, ref, rng):
    for T, d, d_v, bs, causal in ((12, 4, 3, 5, False), (9, 3, 2, 4, True), (6, 5, 4, 64, False)):
        q, k, _ = _inputs(rng, T, d, d_v, scale=1.5)
        c = rng.normal(size=d_v) + 2.0
        v = np.tile(c, (T, 1))
        out, label = _run(cand, q, k, v, bs, causal)
        row = _first_bad_row(out, np.tile(c, (T, 1)))
        if row is None:
            continue
        msg = (f"{label} with every value row equal to c = {np.round(c, 4).tolist()}: row {row} came out as "
               f"{np.round(out[row], 4).tolist()}, expected c itself (the attention weights of a row sum to one)")
        ratio = out[row, 0] / c[0]
        if np.isfinite(ratio) and allclose(out[row], ratio * c, rtol=1e-6, atol=1e-9):
            msg += (f"; it is {fmt(ratio)} x c: the weights summed to {fmt(ratio)}. Divide the accumulator by the "
                    "final running sum l (after the last key block)")
        raise Fail(msg)


def _stable_case(rng, T, d, order, sign):
    """Scores near sign * 1e4 whose spread across keys is thousands: each block shifts the running max a lot."""
    c = np.linspace(-30.0, 30.0, T)
    if order == "decreasing":
        c = c[::-1]
    elif order == "shuffled":
        c = rng.permutation(c)
    k = rng.normal(scale=0.1, size=(T, d))
    k[:, 0] = 100.0 + c
    q = rng.normal(scale=0.1, size=(T, d))
    q[:, 0] = np.asarray(sign) * np.sqrt(d) * 100.0 * (1.0 + 0.01 * rng.normal(size=T))
    return q, k


def _looks_like(out, q, k, v, block_size, causal):
    """'; it looks like ...' when the output matches one of the known numerical shortcuts, else ''."""
    if not np.isfinite(out).any():
        return ""  # nan everywhere matches every slip that gives nan: no evidence for one of them
    with np.errstate(all="ignore"):
        for variant in (_no_max, _tile_max, _tile_global_max, _max_before_mask, _max_zero, _max_frozen,
                        _no_rescale, _inverted, _acc_only, _l_only):
            wrong = variant(q, k, v, block_size, causal)
            if allclose(out, wrong, rtol=1e-6, atol=1e-9, equal_nan=True) and not _close(wrong, _dense(
                    q, k, v, causal)):
                return f". It looks like a known slip: {variant.mistake_message}"
    return ""


def _rows_finite(out):
    return np.isfinite(out).all(axis=1)


def _run_moderate(cand, T, d, d_v, bs, causal_, rng):
    """The candidate on a moderate problem of these shapes: (out or None if it fails there, matches the model)."""
    q, k, v = _inputs(rng, T, d, d_v)
    got = attempt(_run, cand, q, k, v, bs, causal_)
    if isinstance(got, Broke):
        return None, False
    out = got[0]
    with np.errstate(all="ignore"):
        return out, _close(out, _dense(q, k, v, causal_))


def _newly_non_finite(out, moderate, label, ctx, where="on a moderate problem of the same shapes"):
    """Fail when a row is finite on the moderate problem but not on this one."""
    bad = _rows_finite(moderate) & ~_rows_finite(out)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        j = int(np.flatnonzero(~np.isfinite(out[i]))[0])
        raise Fail(f"{label}: entry [{i}, {j}] is {fmt(out[i, j])}, but row {i} is finite {where}: overflow or 0/0 "
                   f"({ctx})")


def _peaked_problem(rng, T, d_v, causal_, magnitude):
    """q, k, v whose scaled scores are `peaked_rows`: each row's maximum at a random key it may attend."""
    scores = peaked_rows(rng, (T, T), magnitude, allowed=causal_allowed(T) if causal_ else None)
    q, k = scores_as_qk(scores)
    return q, k, normal(rng, (T, d_v)), scores


def _peaked(cand, rng, T, d_v, bs, causal_):
    """Fail when rows whose maxima sit at random keys, at very different offsets, lose the answer at 1e4 that the
    same construction gives right at scores of a few units."""
    q, k, v, _ = _peaked_problem(rng, T, d_v, causal_, 1.0)
    moderate = attempt(_run, cand, q, k, v, bs, causal_)
    if isinstance(moderate, Broke) or not _close(moderate[0], _dense(q, k, v, causal_)):
        return  # wrong at scores of a few units already: the other invariants say why
    q, k, v, scores = _peaked_problem(rng, T, d_v, causal_, 1e4)
    out, label = _run(cand, q, k, v, bs, causal_)
    want = _dense(q, k, v, causal_)
    with np.errstate(all="ignore"):
        bad = ~isclose(out, want, rtol=1e-6, atol=1e-9)
    if not bad.any():
        return
    i = int(np.flatnonzero(bad.any(axis=1))[0])
    j = int(np.flatnonzero(bad[i])[0])
    peak = int(np.argmax(scores[i]))
    what = "overflow or 0/0" if not np.isfinite(out[i, j]) else f"expected {fmt(want[i, j])}"
    raise Fail(f"{label}: out[{i}, {j}] is {fmt(out[i, j])}, {what}. Row {i}'s scores run from "
               f"{fmt(scores[i][np.isfinite(scores[i])].min())} to {fmt(scores[i, peak])}, its largest at key {peak} "
               f"(each row's maximum sits at a random key{' it may attend' if causal_ else ''}, rows centred between "
               f"-1e4 and +1e4); the same construction at scores of a few units comes out right. Keep one running "
               f"maximum per query row, starting at -inf and updated from every key tile's scores of that row, and "
               f"rescale the older sums by exp(m_old - m_new)")


@invariant("stable", "scores near +-1e4 whose maximum moves from block to block and sits at a random key of each "
                     "row, rows at very different offsets: no overflow, no 0/0")
def stable(cand, ref, rng):
    T, d, d_v, bs = 40, 4, 3, 8
    moderate = {c: _run_moderate(cand, T, d, d_v, bs, c, rng) for c in (False, True)}
    cases = [("increasing", 1.0, False, "the maximum grows from block to block"),
             ("decreasing", 1.0, False, "the first block holds the maximum"),
             ("shuffled", 1.0, True, "the maximum moves around"),
             ("increasing", -1.0, False, "every score is negative, near -1e4"),
             ("shuffled", -1.0, True, "every score is negative, near -1e4")]
    for order, sign, causal_, what in cases:
        mod_out, mod_ok = moderate[causal_]
        if mod_out is None:
            continue  # it fails on moderate inputs already: not a question of large scores
        q, k = _stable_case(rng, T, d, order, sign)
        v = rng.normal(size=(T, d_v))
        out, label = _run(cand, q, k, v, bs, causal_)
        ctx = (f"scores {'+' if sign > 0 else '-'}1e4 give or take 3,000; {what}. The running max starts at -inf, "
               "is updated with every block, and the old sums are rescaled by exp(m_old - m_new)")
        ctx += _looks_like(out, q, k, v, bs, causal_)
        _newly_non_finite(out, mod_out, label, ctx)
        if mod_ok:  # right on moderate inputs, so a wrong answer here is the large scores' doing
            check_close(out, _dense(q, k, v, causal_), label,
                        context=ctx + "; the same call is right on moderate inputs of the same shapes")
    # Each row's maximum at a random key, rows at very different offsets: not where any shortcut assumes it.
    for causal_ in (False, True):
        _peaked(cand, rng, T, d_v, bs, causal_)
    # Every score of row i shifted by shifts[i] (keys moved along a direction the base keys do not use): attention
    # ignores a constant added to a row, so the candidate's own unshifted result is what the shifted call must give.
    q, k, v = _inputs(rng, T, d, d_v)
    k[:, 0] = 0.0
    shifts = np.resize([1e4, -1e4, 0.0, 3e2, 2e4, -5e3, 1.0, 7e3], T)
    q[:, 0] = shifts * np.sqrt(d)
    name = "each row's scores shifted by its own constant, between -1e4 and +2e4"
    try:
        base, _ = _run(cand, q, k, v, bs, False)
    except (CandidateError, Fail) as err:
        if isinstance(err, CandidateError) and err.not_implemented:
            raise
        return
    shifted = k.copy()
    shifted[:, 0] = 1.0
    out, label = _run(cand, q, shifted, v, bs, False)
    advice = ("keep a running maximum for each query row (not one for the whole tile), starting at -inf, and "
              "compute exp(score - m)")
    _newly_non_finite(out, base, label, f"{name}; {advice}", "on the same problem without the shift")
    small = k.copy()
    small[:, 0] = 3.0 / np.abs(shifts).max()
    fine = _rows_finite(base)
    small_out, _ = _run(cand, q, small, v, bs, False)
    if not allclose(small_out[fine], base[fine], rtol=1e-3, atol=1e-6):
        return  # not even a small shift leaves it unchanged: the other invariants explain why
    idx = worst_entry(out[fine], base[fine], 1e-6, 1e-9)
    if idx is not None:
        i, j = int(np.flatnonzero(fine)[idx[0]]), idx[1]
        raise Fail(f"{label}: out[{i}, {j}] is {fmt(out[i, j])} with {name}, but {fmt(base[i, j])} without the "
                   f"shift (row {i} shifted by {fmt(shifts[i])}); adding the same number to every score of a row "
                   f"must not change attention, so precision was lost: compute the scores and the softmax in float64, "
                   "with one running maximum per query row")


# The size ladder of matches-reference: small problems of every shape, calls that leave out the documented defaults
# (block_size=64, causal=False), and long sequences, past the T = 4,096 of the memory check: a solution that
# switches to float32 or to another code path above some length shows there.
# Both long lengths are primes: tiles of 64 or 128 queries (or keys) always leave a partial last tile there.
LONG_T = 4_099
LONG = ((1_031, 16, 8, 64, False), (LONG_T, 16, 8, None, True))


def _call(cand, q, k, v, block_size=None, causal=None):
    """flash_attention with block_size and causal passed only when not None (None: the default is judged)."""
    kwargs = {k_: v_ for k_, v_ in (("block_size", block_size), ("causal", causal)) if v_ is not None}
    shown = ", ".join([f"q, k of shape {shape_of(q)}, v of shape {shape_of(v)}"] +
                      [f"{k_}={v_}" for k_, v_ in kwargs.items()])
    label = f"flash_attention({shown})"
    out = as_float(cand.flash_attention(q, k, v, **kwargs), label)
    check_shape(out, (q.shape[0], v.shape[1]), label)
    return out, label


def _want(ref, q, k, v, causal):
    # tiles of 128: the reference's fastest at long T (larger tiles cost more in exp than they save in steps)
    return ref.flash_attention(q, k, v, block_size=128, causal=bool(causal))


@invariant("matches-reference", "matches a reference attention to rtol 1e-6, up to T = 4,099, defaults left out")
def matches_reference(cand, ref, rng):
    for T, d, d_v, bs in ((16, 4, 3, 4), (33, 8, 5, 64), (7, 3, 6, 2), (25, 5, 2, 10), (1, 4, 4, 3)):
        for causal_ in (False, True):
            q, k, v = _inputs(rng, T, d, d_v, scale=float(rng.uniform(0.5, 3.0)))
            out, label = _run(cand, q, k, v, bs, causal_)
            check_close(out, ref.flash_attention(q, k, v, block_size=bs, causal=causal_), label)
    # The documented defaults, judged: block_size=64 and causal=False left out (T > 64, so more than one tile).
    q, k, v = _inputs(rng, 70, 6, 5, scale=1.5)
    out, label = _call(cand, q, k, v)
    check_close(out, _want(ref, q, k, v, False), label,
                context="with block_size and causal left out, the defaults block_size=64, causal=False apply")
    out, label = _call(cand, q, k, v, causal=True)
    check_close(out, _want(ref, q, k, v, True), label, context="block_size left out: the default is 64")
    # The magnitude rung of `stable`: each row's maximum at a random key, rows centred between -1e4 and +1e4.
    for causal_ in (False, True):
        with at_rung("scores near 1e4, each row's largest at a random key"):
            q, k, v, _ = _peaked_problem(rng, 40, 3, causal_, 1e4)
            out, label = _run(cand, q, k, v, 8, causal_)
            check_close(out, ref.flash_attention(q, k, v, block_size=8, causal=causal_), label)
    for T, d, d_v, bs, causal_ in LONG:
        with at_rung(f"T = {count(T)}"):
            # scores up to about 40: float32 arithmetic loses the 7th digit there, float64 keeps 13
            q, k, v = (f32_exact(a) for a in _inputs(rng, T, d, d_v, scale=3.0))
            out, label = _call(cand, q, k, v, bs, causal_)
            check_close(out, _want(ref, q, k, v, causal_), label)


@invariant("input-unchanged", "q, k and v are not modified, on every code path (causal or not, defaults left "
                              "out) and at T = 1,031")
def input_unchanged(cand, ref, rng):
    small, long = _inputs(rng, 10, 4, 3), _inputs(rng, 1_031, 16, 8)
    paths = [(small, {"block_size": 4, "causal": False}), (small, {"block_size": 4, "causal": True}), (small, {}),
             (long, {}), (long, {"block_size": 64, "causal": True})]
    for (q, k, v), kwargs in paths:
        for _ in range(2):  # two calls each: the second sees the damage of the first
            _, after, _ = cand.call_tracking_args("flash_attention", q, k, v, **kwargs)
            for name, before, now in zip(("q", "k", "v"), (q, k, v), after[:3], strict=True):
                check_unchanged(before, now, f"{name} of shape {shape_of(before)} (flash_attention with "
                                             f"{', '.join(f'{n}={x}' for n, x in kwargs.items()) or 'defaults'})")


@invariant("memory", f"calls at T={MEM_T:,}, causal or not, allocate far less than one T x T float64 matrix, the "
                     f"causal one no more than half a T x T bool mask beyond the other, and so does one at "
                     f"T={MEM_SMALL_T:,} with the default block_size")
def memory(cand, ref, rng):
    q, k, v = _inputs(rng, MEM_T, MEM_D, MEM_DV)
    # At T = 1,000 a dense fallback for "small" inputs shows: it holds scores, their exp and the weights, three
    # matrices, where one is the limit; (T, block_size) strips of scores and their temporaries stay far below.
    # That call leaves block_size and causal out, so a default block_size of 1,024 (one tile the size of the
    # whole problem) shows too.
    peaks = {}
    for T, causal_, limit in ((MEM_T, False, MEM_LIMIT), (MEM_T, True, MEM_LIMIT),
                              (MEM_SMALL_T, None, MEM_SMALL_T * MEM_SMALL_T * 8)):
        if causal_ is None:
            label = (f"flash_attention(q, k of shape {shape_of(q[:T])}, v of shape {shape_of(v[:T])}) with "
                     f"block_size and causal left out (their defaults are {MEM_BLOCK} and False)")
            result, peak = cand.call_traced("flash_attention", q[:T], k[:T], v[:T])
        else:
            label = _label(q[:T], v[:T], MEM_BLOCK, causal_)
            result, peak = cand.call_traced("flash_attention", q[:T], k[:T], v[:T], block_size=MEM_BLOCK,
                                            causal=causal_)
        if peak > limit:
            raise Fail(f"{label} used up to {peak / MIB:.1f} MiB more memory than before the call; one T x T "
                       f"float64 matrix is {T * T * 8 / MIB:.0f} MiB and a tiled solution needs a few MiB (limit "
                       f"{limit / MIB:.0f} MiB): keep only one (block_size x block_size) tile of scores at a time")
        # The values are judged by the other checks; here only that a real result came back.
        check_shape(as_float(result, label), (T, MEM_DV), label)
        peaks[causal_, T] = peak
    # The causal mask is the one T x T array a tiled solution is tempted to keep: as bool it is 16 MiB at
    # T = 4,096, well inside the limit above, but it is the same T x T memory the exercise is about. A mask built
    # per tile (or per strip of keys) from global positions costs a tile's worth more than the non-causal call.
    extra = peaks[True, MEM_T] - peaks[False, MEM_T]
    if extra > MEM_MASK_EXTRA:
        raise Fail(f"{_label(q, v, MEM_BLOCK, True)} used {extra / MIB:.1f} MiB more memory than the same call "
                   f"with causal=False ({peaks[True, MEM_T] / MIB:.1f} against {peaks[False, MEM_T] / MIB:.1f} "
                   f"MiB); a whole T x T bool mask is {MEM_T * MEM_T / MIB:.0f} MiB (limit "
                   f"{MEM_MASK_EXTRA / MIB:.0f} MiB more): build each tile's mask from its global positions "
                   f"instead of slicing one mask of the whole sequence")


# -- known mistakes, recognised by behaviour on these probes --------------------

def probes(rng):
    q, k, v = _inputs(rng, 10, 4, 3, scale=1.5)
    yield "flash_attention", (q, k, v), {"block_size": 4, "causal": False}
    q, k, v = _inputs(rng, 11, 5, 2, scale=1.5)
    yield "flash_attention", (q, k, v), {"block_size": 4, "causal": True}
    for order, sign in (("increasing", 1.0), ("shuffled", -1.0)):
        q, k = _stable_case(rng, 24, 4, order, sign)
        yield "flash_attention", (q, k, rng.normal(size=(24, 3))), {"block_size": 8, "causal": False}
    # Rows near +1e4 and rows near -1e4 together: tells "no max at all" from "a max that starts at 0".
    q, k = _stable_case(rng, 24, 4, "shuffled", np.where(np.arange(24) % 2, 1.0, -1.0))
    yield "flash_attention", (q, k, rng.normal(size=(24, 3))), {"block_size": 8, "causal": True}
    # Scores a_i * j: the max of row i grows by 8 a_i per key tile, harmless for small a_i, overflowing for large.
    q, k = np.zeros((16, 4)), np.zeros((16, 4))
    q[:, 0] = 2.0 * np.geomspace(1.0, 200.0, 16)
    k[:, 0] = np.arange(16.0)
    yield "flash_attention", (q, k, rng.normal(size=(16, 3))), {"block_size": 8, "causal": False}
    # causal left out: the documented default is False.
    q, k, v = _inputs(rng, 10, 4, 3, scale=1.5)
    yield "flash_attention", (q, k, v), {"block_size": 4}
    yield from _long_probe(rng)


LONG_PROBE_T = 2_048


def _long_probe(rng):
    """One long call (T = 2,048, big tiles, so it stays cheap) on which a float32 cast shows above rtol 1e-5.

    d = 4, so scaling by 1/sqrt(d) = 0.5 is exact in place or not. Only feature 0 is used: q holds integers below
    2**13, k holds 1 + n / 2**10 (n < 64) plus a random offset below half a float32 step, so float32 drops exactly the
    offsets and computes the rest of the scores exactly: any float32 solution agrees with a cast of the inputs,
    and differs from float64 by about 1e-4 in the scores (in the thousands, a few apart from one n to the next).
    """
    T = LONG_PROBE_T
    q, k = np.zeros((T, 4)), np.zeros((T, 4))
    q[:, 0] = rng.integers(2_000, 8_000, size=T).astype(np.float64)
    k[:, 0] = 1.0 + rng.integers(0, 64, size=T) / 2 ** 10 + rng.uniform(0.05, 0.45, size=T) * 2.0 ** -23
    v = rng.integers(-64, 64, size=(T, 3)) / 16.0
    yield "flash_attention", (q, k, v), {"block_size": 256, "causal": False}


def _tiled(q, k, v, block_size=64, causal=False, *, drop_tail=False, rescale="both", divide=True, m0=-np.inf,
           mask="global", scaled=True, freeze_max=False, tile_max=None, max_before_mask=False, global_max=False,
           key_tiles="all", scale_width="d", l_reset=False, normalised=False, pad_keys=False):
    """The tiled forward pass with one known mistake switched on.

    mask: "global" (j > i, right), "local" (offsets inside the tile), "diagonal" (j >= i, filled with -1e9) or
    "none"; key_tiles with causal=True: "all", "to-diagonal" (stop after the tile holding the diagonal) or
    "before-diagonal" (stop before it); normalised: keep the output divided by l after every tile; pad_keys: k and v
    padded with zero rows to whole tiles, the padding left unmasked.
    """
    T, d = q.shape
    if pad_keys:
        pad = -T % block_size
        k, v = np.concatenate([k, np.zeros((pad, k.shape[1]))]), np.concatenate([v, np.zeros((pad, v.shape[1]))])
    out = np.zeros((T, v.shape[1]))
    stop = T - T % block_size if drop_tail else T
    scale = 1 / np.sqrt(d if scale_width == "d" else v.shape[1]) if scaled else 1.0
    for qs in range(0, stop, block_size):
        qe = min(qs + block_size, stop)
        m = np.full(qe - qs, m0)
        l = np.zeros(qe - qs)
        acc = np.zeros((qe - qs, v.shape[1]))
        k_stop = ({"all": stop, "to-diagonal": qe, "before-diagonal": qs}[key_tiles] if causal
                  else len(k) if pad_keys else stop)
        for ks in range(0, k_stop, block_size):
            ke = min(ks + block_size, k_stop)
            s = q[qs:qe] @ k[ks:ke].T * scale
            unmasked_max = s.max(axis=1)
            if causal and mask != "none":
                if mask == "local":
                    blocked = np.triu(np.ones((qe - qs, ke - ks), dtype=bool), 1)
                elif mask == "diagonal":
                    blocked = np.arange(ks, ke)[None, :] >= np.arange(qs, qe)[:, None]
                else:
                    blocked = np.arange(ks, ke)[None, :] > np.arange(qs, qe)[:, None]
                s = np.where(blocked, -1e9 if mask == "diagonal" else -np.inf, s)
            if tile_max is not None:  # no running max: each tile against its own maximum (or none at all)
                shift = 0.0 if tile_max == "none" else s.max(axis=1, keepdims=True)
                p = np.exp(s - shift)
                l, acc = l + p.sum(axis=1), acc + p @ v[ks:ke]
                continue
            if freeze_max:
                m_new = s.max(axis=1) if ks == 0 else m
            elif max_before_mask:
                m_new = np.maximum(m, unmasked_max)
            elif global_max:
                m_new = np.maximum(m, s.max())
            else:
                m_new = np.maximum(m, s.max(axis=1))
            if rescale == "inverted":
                alpha = np.exp(m_new - m) if np.isfinite(m).all() else np.zeros_like(m)
            elif rescale == "none" or freeze_max:
                alpha = np.ones_like(m)
            else:
                alpha = np.exp(m - m_new)
            p = np.exp(s - m_new[:, None])
            l_new = p.sum(axis=1) if l_reset else (1.0 if rescale == "acc" else alpha) * l + p.sum(axis=1)
            acc = (1.0 if rescale == "l" else alpha[:, None]) * acc + p @ v[ks:ke]
            if normalised:  # acc holds the output so far, already divided by l: the factor l / l_new is missing
                acc = acc / l_new[:, None]
            m, l = m_new, l_new
        out[qs:qe] = acc if normalised or not divide else acc / l[:, None]
    return out


@mistake("flash-drop-tail", "loop over ceil(T / block_size) blocks (range(0, T, block_size)); T // block_size "
         "drops the final, partial block")
def _drop_tail(q, k, v, block_size=64, causal=False):
    return _tiled(q, k, v, block_size, causal, drop_tail=True)


@mistake("flash-no-rescale", "when a tile raises a row's running max from m to m_new, multiply the running sum and "
         "the accumulator by exp(m - m_new) before adding the new tile")
def _no_rescale(q, k, v, block_size=64, causal=False):
    return _tiled(q, k, v, block_size, causal, rescale="none")


@mistake("flash-rescale-acc-only", "rescale the running sum l by exp(m - m_new) too, not only the accumulator")
def _acc_only(q, k, v, block_size=64, causal=False):
    return _tiled(q, k, v, block_size, causal, rescale="acc")


@mistake("flash-rescale-l-only", "rescale the accumulator by exp(m - m_new) too, not only the running sum l: "
         "both hold sums taken against the old maximum")
def _l_only(q, k, v, block_size=64, causal=False):
    return _tiled(q, k, v, block_size, causal, rescale="l")


@mistake("flash-padded-keys-unmasked", "keys padded with zeros to whole tiles still score 0 and count in every "
         "row's sum: mask the padding with -inf, or slice the last tile short (k[ks:ks + block_size] already is)")
def _padded_keys(q, k, v, block_size=64, causal=False):
    return _tiled(q, k, v, block_size, causal, pad_keys=True)


@mistake("flash-rescale-inverted", "the rescale factor is exp(m_old - m_new), at most 1; exp(m_new - m_old) grows "
         "the old sums instead of shrinking them")
def _inverted(q, k, v, block_size=64, causal=False):
    return _tiled(q, k, v, block_size, causal, rescale="inverted")


@mistake("flash-no-final-divide", "divide the accumulator by the final running sum l after the last key tile")
def _no_divide(q, k, v, block_size=64, causal=False):
    return _tiled(q, k, v, block_size, causal, divide=False)


@mistake("flash-max-starts-at-zero", "start the running max at -inf: starting at 0 makes every exp(score - 0) "
         "underflow to 0 when all scores are very negative")
def _max_zero(q, k, v, block_size=64, causal=False):
    return _tiled(q, k, v, block_size, causal, m0=0.0)


@mistake("flash-max-not-updated", "update the running max with every key tile (m_new = max(m, tile max)), not only "
         "on the first")
def _max_frozen(q, k, v, block_size=64, causal=False):
    return _tiled(q, k, v, block_size, causal, freeze_max=True)


@mistake("flash-local-causal-mask", "build the causal mask of a tile from global positions (tile start + offset); a "
         "triangle of offsets inside the tile is wrong for every tile off the diagonal")
def _local_mask(q, k, v, block_size=64, causal=False):
    return _tiled(q, k, v, block_size, causal, mask="local")


@mistake("flash-local-causal-mask", "build the causal mask of a tile from global positions (tile start + offset); a "
         "triangle of offsets inside the tile is wrong for every tile off the diagonal")
def _local_mask_to_diagonal(q, k, v, block_size=64, causal=False):  # the same, with the future tiles skipped
    return _tiled(q, k, v, block_size, causal, mask="local", key_tiles="to-diagonal")


@mistake("no-scale", "divide the scores by sqrt(d) before the softmax")
def _unscaled(q, k, v, block_size=64, causal=False):
    return _tiled(q, k, v, block_size, causal, scaled=False)


@mistake("no-max-subtraction", "keep a running maximum m of each row's scores and compute exp(score - m): exp of a "
                               "raw score past about 709 overflows")
def _no_max(q, k, v, block_size=64, causal=False):
    return _tiled(q, k, v, block_size, causal, tile_max="none")


@mistake("flash-tile-max", "a tile's own maximum is not enough: keep a running max over all tiles so far and rescale "
                           "the older sums by exp(m_old - m_new); sums taken against different maxima cannot be added")
def _tile_max(q, k, v, block_size=64, causal=False):
    return _tiled(q, k, v, block_size, causal, tile_max="row")


@mistake("global-max", "keep one running maximum per query row (s.max(axis=1)), not one for the whole tile: rows "
                       "far below it underflow to 0/0")
def _tile_global_max(q, k, v, block_size=64, causal=False):
    return _tiled(q, k, v, block_size, causal, global_max=True)


@mistake("max-before-mask", "mask the future before taking the row maximum: a maximum over masked keys can sit "
                            "thousands above every visible score and send their exp to 0")
def _max_before_mask(q, k, v, block_size=64, causal=False):
    return _tiled(q, k, v, block_size, causal, max_before_mask=True)


@mistake("flash-no-mask-in-diagonal-tile", "stopping the key loop at the diagonal tile is not enough: inside that tile "
         "mask key j for query i when j > i, or a query sees the later keys of its own tile")
def _no_diagonal_mask(q, k, v, block_size=64, causal=False):
    return _tiled(q, k, v, block_size, causal, mask="none", key_tiles="to-diagonal")


@mistake("flash-skips-diagonal-tile", "visit the key tiles up to and including the diagonal one (range(0, qe, "
         "block_size)): range(0, qs) leaves the first query tile with no key at all")
def _skips_diagonal_tile(q, k, v, block_size=64, causal=False):
    return _tiled(q, k, v, block_size, causal, key_tiles="before-diagonal")


@mistake("mask-includes-diagonal", "mask only the future, j > i: masking j >= i hides each query from itself and "
         "leaves query 0 with no key")
def _mask_diagonal(q, k, v, block_size=64, causal=False):
    return _tiled(q, k, v, block_size, causal, mask="diagonal")


@mistake("flash-sum-not-accumulated", "accumulate the running sum, l = alpha * l + p.sum(axis=1): setting it to the "
         "current tile's sum normalises by the last tile alone")
def _l_reset(q, k, v, block_size=64, causal=False):
    return _tiled(q, k, v, block_size, causal, key_tiles="to-diagonal", l_reset=True)


@mistake("flash-normalised-missing-l", "an output kept normalised after every tile is rescaled by "
         "exp(m_old - m_new) * l_old / l_new; or keep it unnormalised and divide by l once at the end")
def _normalised_missing_l(q, k, v, block_size=64, causal=False):
    return _tiled(q, k, v, block_size, causal, key_tiles="to-diagonal", normalised=True)


@mistake("scale-by-d-v", "divide the scores by sqrt(d), d the width of q and k (q.shape[1]), not by the "
                                 "width of v")
def _scale_value_width(q, k, v, block_size=64, causal=False):
    return _tiled(q, k, v, block_size, causal, scale_width="d_v")


@mistake("flash-default-causal", "the signature's default is causal=False: a call that leaves causal out must not "
                                 "mask the future")
def _default_causal(q, k, v, block_size=64, causal=True):
    return _tiled(q, k, v, block_size, causal)


@mistake("scale-folded-in-place", "scale a copy (q[qs:qe] / np.sqrt(d) makes a new array): q /= np.sqrt(d) or q *= ... "
                           "rewrites the caller's queries")
def _scale_in_place(q, k, v, block_size=64, causal=False):
    # Judged on the long probe, where the solutions that do it only for long inputs do it too.
    out = _tiled(q, k, v, block_size, causal)
    if q.shape[0] >= 1_024:
        q /= np.sqrt(q.shape[1])
    return out


@mistake("flash-float32-long", "compute in float64 at every length: float32 scores lose about the 7th digit, which "
                               "a long sequence's scores in the thousands turn into errors of 1e-4")
def _float32_long(q, k, v, block_size=64, causal=False):
    # Judged on the long probe only, so a solution that switches to float32 past some length is named too.
    if q.shape[0] >= 1_024:
        q, k, v = (np.asarray(a, dtype=np.float32).astype(np.float64) for a in (q, k, v))
    return _tiled(q, k, v, block_size, causal)
