"""Hidden checks for the `attention` exercise."""

import math

import numpy as np

from attnprep.grading import (
    Broke,
    Fail,
    allclose,
    as_float,
    attempt,
    check_close,
    check_unchanged,
    fmt,
    invariant,
    is_expected,
    isclose,
    mistake,
    row_shift_problem,
    shape_of,
    softmax_divisor,
    worst_entry,
)
from attnprep.ladders import (
    WIDE_HEAD,
    ZERO_SCORES,
    Stopwatch,
    check_close_fast,
    fill_before_scale,
    meanwhile,
    normal,
    peak_text,
    peaked_qk,
    up_to_long,
    with_zero_rows,
)

FUNCTIONS = ("attention",)

_NO_MASK = object()  # call without passing `mask` at all


# -- helpers --------------------------------------------------------------------

def _qkv(rng, batch, t_q, t_k, d_k, d_v, scale=1.0):
    q = rng.normal(scale=scale, size=(*batch, t_q, d_k))
    k = rng.normal(scale=scale, size=(*batch, t_k, d_k))
    v = rng.normal(size=(*batch, t_k, d_v))
    return q, k, v


def _label(q, k, v, mask=_NO_MASK):
    text = f"attention(q {shape_of(q)}, k {shape_of(k)}, v {shape_of(v)}"
    if mask is None:
        text += ", mask=None"
    elif mask is not _NO_MASK:
        text += f", mask {shape_of(mask)}"
    return text + ")"


def _run(cand, q, k, v, mask=_NO_MASK):
    """Call the candidate and check the output shape; returns (out, label)."""
    label = _label(q, k, v, mask)
    # An exception is reported under the call's label (its argument shapes).
    args = (q, k, v) if mask is _NO_MASK else (q, k, v, mask)
    out = cand.call_as(label, "attention", *args)
    out = as_float(out, f"the output of {label}")
    want = (*q.shape[:-2], q.shape[-2], v.shape[-1])
    if tuple(out.shape) != want:
        raise Fail(f"{label} returned shape {shape_of(out)}, expected {shape_of(np.empty(want))}: "
                   f"the batch dims {shape_of(np.empty(q.shape[:-2]))}, one row per query "
                   f"(T_q = {q.shape[-2]}), each of width d_v = {v.shape[-1]}")
    return out, label


def _make_mask(rng, shape, j_star):
    """A random bool mask (True = blocked) with no row fully blocked, and key `j_star`
    blocked in some rows and open in others (so a mask that is ignored or inverted shows)."""
    t_k = shape[-1]
    m = rng.random(shape) < 0.4
    keep = rng.integers(0, t_k - 1, size=shape[:-1])
    keep = keep + (keep >= j_star)  # every row keeps one open key other than j_star
    np.put_along_axis(m, keep[..., None], False, axis=-1)
    col = rng.random(shape[:-1]) < 0.5
    col.flat[0], col.flat[-1] = True, False
    m[..., j_star] = col if len(shape) > 1 else True  # a (T_k,) mask has one row: j_star blocked in it
    return m


def _softmax_attention(q, k, v, mask, divisor):
    """Attention with the scores divided by `divisor` (for naming a wrong scale)."""
    scores = q @ np.swapaxes(k, -1, -2) / divisor
    if mask is not None:
        scores = np.where(mask, -np.inf, scores)
    w = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return (w / w.sum(axis=-1, keepdims=True)) @ v


def _big_scores(rng, batch, t_q, t_k, d_k, d_v, j, dominant):
    """q, k, v whose scores are all about -1e4, or (dominant) about 0 except key j's, about +1e4."""
    q, k, v = _qkv(rng, batch, t_q, t_k, d_k, d_v)
    q[..., 0] = (1.0 if dominant else -1.0) * 1e4 * np.sqrt(d_k)
    k[..., 0] = 0.0 if dominant else 1.0
    if dominant:
        q[..., 1:] *= 0.1
        k[..., j, 0] = 1.0
    return q, k, v


def _non_identity_permutation(rng, n):
    while True:
        p = rng.permutation(n)
        if (p != np.arange(n)).any():
            return p


# -- invariants ----------------------------------------------------------------

_SELF_RTOL, _SELF_ATOL = 1e-5, 1e-6  # the candidate against itself: float32 rounding is not what these checks judge


def _try(cand, q, k, v, mask=_NO_MASK):
    """_run, or a Broke when the call raised or returned something unusable (a wrong shape, say)."""
    return attempt(_run, cand, q, k, v, mask)


def _first_diff(got, want):
    """The first entry where got and want differ beyond the self-consistency tolerance, or None."""
    idx = worst_entry(got, want, _SELF_RTOL, _SELF_ATOL)
    if idx is None:
        return None
    n = int((~isclose(got, want, rtol=_SELF_RTOL, atol=_SELF_ATOL, equal_nan=True)).sum())
    return idx, n


def _at(idx):
    return ", ".join(str(int(i)) for i in idx)


@invariant("shape", "the output has shape (..., T_q, d_v)")
def shape(cand, ref, rng):
    # A call that raises says nothing about the shape of an output (batch-dims and the others report it);
    # a call that returns must return the right shape.
    raised = []
    for batch, t, d_k, d_v in (((), 5, 4, 3), ((), 1, 3, 2), ((2,), 6, 4, 5), ((2, 3), 5, 4, 2)):
        got = _try(cand, *_qkv(rng, batch, t, t, d_k, d_v))
        if isinstance(got, Broke):
            if not got.raised:
                raise Fail(got.text)
            raised.append(got.text)
    if len(raised) == 4:
        raise Fail(f"every call raised, so no output shape could be checked; the first: {raised[0]}")


def _rank_words(depth, batch):
    """How a call at `depth` (batch axes indexed away) is described: its number of leading batch dims."""
    left = batch[depth:]
    if not left:
        return "on each batch element alone (plain 2-D q, k, v)"
    if depth == 0:
        return f"on the whole arrays (leading batch dims {shape_of(np.empty(left))})"
    return f"on each q[i], k[i], v[i] (leading batch dims {shape_of(np.empty(left))})"


@invariant("batch-dims", "works for any number of leading batch dims; each batch element is independent")
def batch_dims(cand, ref, rng):
    # The candidate against itself: the full batched call, the calls on each slice of the first batch axis (with
    # two batch dims or more) and the calls on each batch element alone (2-D) must all return a result, and the
    # same one for every batch element. Code that works with one number of batch dims and fails with another
    # (written for 2-D only, or for (B, T, d) only) fails here. Where no number of batch dims works, the other
    # checks report it.
    cases = (((3,), 5, 5, 4, 3), ((2, 3), 4, 6, 5, 2), ((2, 1, 2), 3, 3, 2, 4), ((1,), 6, 4, 3, 3))
    for batch, t_q, t_k, d_k, d_v in cases:
        q, k, v = _qkv(rng, batch, t_q, t_k, d_k, d_v)
        label = _label(q, k, v)
        depths = [0, 1, len(batch)] if len(batch) >= 2 else [0, len(batch)]
        levels = {}  # depth -> {index into the batch dims: the call's result (or Broke)}
        for depth in depths:
            levels[depth] = {idx: _try(cand, q[idx], k[idx], v[idx]) for idx in np.ndindex(*batch[:depth])}
        working = [d for d in depths if not any(isinstance(r, Broke) for r in levels[d].values())]
        if not working:
            continue  # no number of batch dims works: nothing to compare, for the other checks
        for depth in depths:
            broke = next((r for r in levels[depth].values() if isinstance(r, Broke)), None)
            if broke is None:
                continue
            good = working[0]
            raise Fail(f"{label}: {_rank_words(depth, batch)} the function fails ({broke.text}), while "
                       f"{_rank_words(good, batch)} it returns a result. Every axis before the last two is a "
                       "batch axis, and there may be none, one or several (use @ or np.matmul, "
                       "np.swapaxes(k, -1, -2), q.shape[-1], and reduce over axis=-1 with keepdims=True)")
        base_depth = len(batch)
        for depth in depths[:-1]:
            for idx, one in levels[depth].items():
                out = one[0]
                for rest in np.ndindex(*batch[depth:]):
                    single = levels[base_depth][idx + rest][0]
                    diff = _first_diff(out[rest], single)
                    if diff is None:
                        continue
                    (i, c), n = diff
                    whole = idx + rest
                    call = label if depth == 0 else f"the call on q[{_at(idx)}], k[{_at(idx)}], v[{_at(idx)}]"
                    raise Fail(f"{call}, batch element {list(whole)}: output[{_at(whole)}, {i}, {c}] is "
                               f"{fmt(out[rest][i, c])}, while the same function on that batch element alone (2-D) "
                               f"gives {fmt(single[i, c])} ({n} of {single.size} entries differ): each batch "
                               "element must be computed independently, as on its own; every axis before the last "
                               "two is a batch axis")


def _far_queries(rng, q, k, n_extra, big):
    """k with a unit component along u, and n_extra more queries -big * u: their scores are about -big.

    The real queries have no component along u, so their scores do not change. Softmaxed over the keys, the extra
    rows are ordinary rows (dropped later); softmaxed over the queries by mistake, they get weight 0."""
    d_k = q.shape[-1]
    u = rng.normal(size=d_k)
    u /= np.linalg.norm(u)
    q = q - (q @ u)[..., None] * u
    k = k - (k @ u)[..., None] * u + u
    extra = rng.normal(size=(*q.shape[:-2], n_extra, d_k))
    extra = extra - (extra @ u)[..., None] * u - big * u
    return np.concatenate([q, extra], axis=-2), k


def _far_keys(rng, q, k, v, n_extra, big):
    """n_extra more keys scoring about -big against every query (weight 0 after a softmax), with zero values."""
    d_k = q.shape[-1]
    u = rng.normal(size=d_k)
    u /= np.linalg.norm(u)
    q = q - (q @ u)[..., None] * u + u
    k = k - (k @ u)[..., None] * u
    extra = rng.normal(size=(*k.shape[:-2], n_extra, d_k))
    extra = extra - (extra @ u)[..., None] * u - big * u
    zeros = np.zeros((*v.shape[:-2], n_extra, v.shape[-1]))
    return q, np.concatenate([k, extra], axis=-2), np.concatenate([v, zeros], axis=-2)


@invariant("cross-attention", "queries and keys of different lengths (T_q != T_k)")
def cross_attention(cand, ref, rng):
    # The candidate against itself: a T_q != T_k call must give the rows of a square call of the same function.
    # T_q < T_k: the square call has extra queries (scoring about -2e4, so they take no weight from the real queries
    # however the softmax is taken); T_q > T_k: extra keys scoring about -2e4 against every query, with zero values,
    # which take no weight. Whatever else the candidate gets wrong, it gets wrong alike in both calls; where the
    # square call already fails, the other checks report it.
    cases = (((), 3, 7, 4, 5, False), ((), 8, 2, 3, 3, False), ((2,), 4, 9, 6, 2, False),
             ((2, 3), 1, 5, 4, 4, False), ((2,), 6, 1, 4, 3, False), ((), 4, 6, 5, 2, True),
             ((3,), 4, 6, 5, 2, True))
    for batch, t_q, t_k, d_k, d_v, masked in cases:
        big = 2e4 * d_k
        q, k, v = _qkv(rng, batch, t_q, t_k, d_k, d_v)
        m = _make_mask(rng, (t_q, t_k), j_star=int(rng.integers(0, t_k))) if masked else _NO_MASK
        if t_q < t_k:
            qs, ks = _far_queries(rng, q, k, t_k - t_q, big)
            q, k, vs = qs[..., :t_q, :], ks, v
            # the extra queries copy real rows of the mask: no key goes from blocked for every query to open for one
            ms = m if m is _NO_MASK else np.concatenate([m, m[np.arange(t_k - t_q) % t_q]])
            how = f"the same q, k and v with {t_k - t_q} more queries, so that T_q = T_k = {t_k}"
        else:
            q, ks, vs = _far_keys(rng, q, k, v, t_q - t_k, big)
            k, v, qs = ks[..., :t_k, :], vs[..., :t_k, :], q
            ms = m if m is _NO_MASK else np.concatenate([m, np.zeros((t_q, t_q - t_k), bool)], axis=-1)
            how = (f"the same q, k and v with {t_q - t_k} more keys whose dot product with every query is about "
                   f"{fmt(-big)} (so they get weight 0) and whose values are zero, so that T_q = T_k = {t_q}")
        square = _try(cand, qs, ks, vs, ms)
        if isinstance(square, Broke):
            continue  # the square call already fails: for the other checks
        got = _try(cand, q, k, v, m)
        if isinstance(got, Broke):
            raise Fail(f"{got.text}; with T_q = {t_q} and T_k = {t_k}, while a square call with {how} returns a "
                       "result: T_q is q.shape[-2] and T_k is k.shape[-2]; nothing requires them to be equal "
                       "(reduce over axis=-1 with keepdims=True)")
        out, label = got
        diff = _first_diff(out, square[0][..., :t_q, :])
        if diff is not None:
            idx, n = diff
            raise Fail(f"{label} with T_q = {t_q}, T_k = {t_k}: output[{_at(idx)}] is {fmt(out[idx])}, while the "
                       f"same function on {how} gives {fmt(square[0][..., :t_q, :][idx])} for that entry "
                       f"({n} of {out.size} entries differ): the result must not depend on T_q matching T_k")


@invariant("sum-to-one", "each query's weights over the keys sum to one (equal value rows come out unchanged)")
def sum_to_one(cand, ref, rng):
    # Every value row is the same vector c, so weights that sum to one give c whatever they are. A call that
    # raises or returns a wrong shape is for the other checks.
    for batch, t_q, t_k, d_k, d_v in (((), 6, 6, 4, 3), ((), 3, 5, 2, 2), ((2,), 5, 4, 3, 4),
                                      ((2, 2), 4, 4, 3, 2)):
        q, k, _ = _qkv(rng, batch, t_q, t_k, d_k, d_v, scale=1.5)
        c = rng.normal(size=(*batch, 1, d_v)) + 2.0
        v = np.repeat(c, t_k, axis=-2)
        got = _try(cand, q, k, v)
        if isinstance(got, Broke):
            continue
        out, label = got
        check_close(out, np.broadcast_to(c, out.shape), label,
                    context="every value row is the same vector c, so every output row must be c: "
                            "each query's weights over the keys must sum to one")


@invariant("permutation-equivariant",
           "without a mask, shuffling the queries shuffles the outputs; shuffling keys with values changes nothing")
def permutation_equivariant(cand, ref, rng):
    for batch, t_q, t_k, d_k, d_v, explicit_none in (((), 6, 6, 4, 3, False), ((2,), 5, 7, 3, 4, True),
                                                     ((2, 2), 6, 6, 3, 5, False)):
        q, k, v = _qkv(rng, batch, t_q, t_k, d_k, d_v)
        mask = None if explicit_none else _NO_MASK
        first = _try(cand, q, k, v, mask)
        if isinstance(first, Broke):
            continue  # the unshuffled call already fails: for the other checks
        base = first[0]
        p = _non_identity_permutation(rng, t_q)
        out, label = _run(cand, q[..., p, :], k, v, mask)
        check_close(out, base[..., p, :], f"{label} with the queries shuffled", rtol=_SELF_RTOL, atol=_SELF_ATOL,
                    context=f"query order {p.tolist()} should give the output rows of the unshuffled call "
                            "in that same order; attention without a mask has no notion of position")
        p = _non_identity_permutation(rng, t_k)
        out, label = _run(cand, q, k[..., p, :], v[..., p, :], mask)
        check_close(out, base, f"{label} with keys and values shuffled together", rtol=_SELF_RTOL,
                    atol=_SELF_ATOL, context=f"key order {p.tolist()} (values shuffled the same way) should not "
                                             "change the output at all")


def _blocked_by_scores(q, k, m, big):
    """q, k with T_q more features, so that every key a row's mask blocks scores about -big in that row.

    Query i gets a one on feature d_k + i, key j gets -big there where the mask blocks it for query i: a call
    without the mask then gives the blocked keys weight 0 through the scores alone, and must equal the masked call.
    """
    t_q = q.shape[-2]
    blocked = np.broadcast_to(m, (*np.broadcast_shapes(q.shape[:-2], np.shape(m)[:-2]), t_q, k.shape[-2]))
    full = blocked.shape[:-2]
    q2 = np.concatenate([np.broadcast_to(q, (*full, *q.shape[-2:])),
                         np.broadcast_to(np.eye(t_q), (*full, t_q, t_q))], axis=-1)
    k2 = np.concatenate([np.broadcast_to(k, (*full, *k.shape[-2:])),
                         -big * np.swapaxes(blocked, -1, -2).astype(np.float64)], axis=-1)
    return q2, k2


def _batch_consistent(cand, q, k, v):
    """The call without a mask returns, and (with batch dims) equals the calls on each batch element alone."""
    got = _try(cand, q, k, v)
    if isinstance(got, Broke):
        return False
    for idx in np.ndindex(*q.shape[:-2]):
        if not idx:
            break
        one = _try(cand, q[idx], k[idx], v[idx])
        if isinstance(one, Broke) or _first_diff(got[0][idx], one[0]) is not None:
            return False
    return True


@invariant("mask", "a bool mask (True = blocked) broadcasts to (..., T_q, T_k); blocked keys get weight exactly 0")
def mask(cand, ref, rng):
    # Every verdict compares the candidate with itself: a masked call against the same call with a changed blocked
    # key, against its own call without the mask on equal value rows, and against an all-False mask with the blocked
    # keys pushed to scores of about -2e4 instead.
    # Where the call without a mask already fails, the other checks report it.
    cases = (
        ("a (T_q, T_k) mask", (), 5, 7, 4, 3, (5, 7)),
        ("one (T_q, T_k) mask shared by the batch", (3,), 6, 6, 4, 2, (6, 6)),
        ("a (B, 1, 1, T_k) padding mask", (2, 3), 5, 6, 4, 3, (2, 1, 1, 6)),
        # One query, as in a decoding step: code often takes a shortcut for T_q == 1, and the mask must still hold.
        ("a (B, 1, 1, T_k) padding mask and one query (T_q = 1, a decoding step)", (2, 3), 1, 6, 4, 3, (2, 1, 1, 6)),
        ("a (T_k,) mask and one query (T_q = 1)", (), 1, 5, 3, 2, (5,)),
        ("a full-shape mask", (2,), 4, 5, 3, 4, (2, 4, 5)),
        # Shapes that read differently when taken for another layout: a (T_q, T_k) mask whose T_q equals B looks
        # like a (B, T_k) padding mask, a per-head (H, T_q, T_k) one with H == B like a (B, T_q, T_k) one.
        ("a (T_q, T_k) mask, with as many batch elements as queries", (4,), 4, 6, 3, 2, (4, 6)),
        ("one (H, T_q, T_k) mask per head, shared by the batch", (2, 3), 4, 5, 3, 2, (3, 4, 5)),
        ("one (H, T_q, T_k) mask per head, as many heads as batch elements", (3, 3), 4, 5, 3, 2, (3, 4, 5)),
        ("a (T_k,) mask, the same keys blocked for every query", (2,), 4, 6, 3, 2, (6,)),
    )
    for what, batch, t_q, t_k, d_k, d_v, mshape in cases:
        q, k, v = _qkv(rng, batch, t_q, t_k, d_k, d_v)
        j = int(rng.integers(0, t_k))
        m = _make_mask(rng, mshape, j_star=j)
        if not _batch_consistent(cand, q, k, v):
            continue  # fails without a mask already, or mixes the batch elements: for the other checks
        got = _try(cand, q, k, v, m)
        if isinstance(got, Broke):
            raise Fail(f"{got.text}, with {what}, while the same call without the mask returns a result: the mask "
                       "broadcasts against the scores (..., T_q, T_k); apply it with np.where(mask, -np.inf, scores)")
        out, label = got

        # A blocked key must have no influence on the rows that block it.
        k2, v2 = k.copy(), v.copy()
        k2[..., j, :] += rng.normal(scale=3.0, size=k2[..., j, :].shape)
        v2[..., j, :] += 10.0
        out2, _ = _run(cand, q, k2, v2, m)
        idx = _moved_blocked_row(out, out2, m, j)
        if idx is not None:
            raise Fail(f"{label} with {what}: key {j} is blocked for query row {list(idx)} (mask True), "
                       f"yet changing that key and its value changed output row {list(idx)} from "
                       f"{fmt(out[idx][0])}, ... to {fmt(out2[idx][0])}, ...; True means blocked, "
                       "and a blocked key must get weight exactly 0")

        # Every open key keeps some weight: with v the identity, each output row is that query's weights.
        eye = np.broadcast_to(np.eye(t_k), (*batch, t_k, t_k))
        read = _try(cand, q, k, eye, m)
        if not isinstance(read, Broke):
            w, label_w = read
            shut = ~np.broadcast_to(m, w.shape) & (w <= 0.0)
            if shut.any():
                idx = tuple(int(i) for i in np.argwhere(shut)[0])
                raise Fail(f"{label_w} with {what} and v the identity, so that each output row is that query's "
                           f"weights: key {idx[-1]} is open for query row {list(idx[:-1])} (mask False), yet gets "
                           f"weight {fmt(w[idx])}: only the keys where the mask is True are blocked")

        # The weights that remain must still sum to one, if they do without a mask (else sum-to-one reports it).
        c = rng.normal(size=(*batch, 1, d_v)) + 2.0
        vc = np.repeat(c, t_k, axis=-2)
        plain = _try(cand, q, k, vc)
        if isinstance(plain, Broke) or not allclose(plain[0], np.broadcast_to(c, plain[0].shape),
                                                       rtol=_SELF_RTOL, atol=_SELF_ATOL):
            continue
        out_c, _ = _run(cand, q, k, vc, m)
        check_close(out_c, np.broadcast_to(c, out_c.shape), f"{label} with {what}", rtol=_SELF_RTOL, atol=_SELF_ATOL,
                    context="every value row is the same vector c, so every output row must be c, as it is "
                            "without the mask: the weights left after masking must still sum to one (mask the "
                            "scores before the softmax)")

        # Masking a key equals giving it a score of about -2e4 in that row: the open keys keep their weights.
        big = 2e4 * (d_k + t_q)
        q2, k2 = _blocked_by_scores(q, k, m, big)
        v_full = np.broadcast_to(v, (*q2.shape[:-2], t_k, d_v)).copy()
        unmasked = _try(cand, q2, k2, v_full, np.zeros_like(m))  # a mask that blocks nothing
        if isinstance(unmasked, Broke):
            continue
        masked, label2 = _run(cand, q2, k2, v_full, m)
        diff = _first_diff(masked, unmasked[0])
        if diff is not None:
            idx, n = diff
            raise Fail(f"{label2} with {what}: output[{_at(idx)}] is {fmt(masked[idx])}, while the same call with an "
                       f"all-False mask, where every blocked key instead scores about {fmt(-big / np.sqrt(d_k + t_q))} "
                       f"in the rows that block it, gives {fmt(unmasked[0][idx])} ({n} of {masked.size} entries "
                       "differ): the mask must remove exactly the keys where it is True, and leave the open keys "
                       "their usual weights")

    # Scores near 1e4: a blocked key must still get exactly 0, which a finite fill such as -1e4 (put in place or
    # added) does not give here. An overflow or 0/0 at these scores is for `stable` to report, not this check.
    # Last, every score near -1e4 at d_k = 128, where a fill put in before dividing by sqrt(d_k) shrinks above them.
    for what, dominant, d_k in (("every score near -1e4", False, 4), ("the blocked key scoring 1e4 above the rest",
                                True, 4), (f"every score near -1e4 and d_k = {WIDE_HEAD}", False, WIDE_HEAD)):
        batch, t_q, t_k, d_v = (2,), 4, 5, 3
        j = int(rng.integers(0, t_k))
        q, k, v = _big_scores(rng, batch, t_q, t_k, d_k, d_v, j, dominant)
        m = _make_mask(rng, (t_q, t_k), j_star=j)
        got = _try(cand, q, k, v, m)
        if isinstance(got, Broke):
            continue
        out, label = got
        v2 = v.copy()
        v2[..., j, :] += 10.0
        out2, _ = _run(cand, q, k, v2, m)
        if not (np.isfinite(out).all() and np.isfinite(out2).all()):
            continue
        idx = _moved_blocked_row(out, out2, m, j)
        if idx is not None:
            raise Fail(f"{label} with {what}: key {j} is blocked for query row {list(idx)} (mask True), yet "
                       f"changing its value changed output row {list(idx)} from {fmt(out[idx][0])}, ... to "
                       f"{fmt(out2[idx][0])}, ...: a blocked key must get weight exactly 0. Is the blocked score "
                       f"set to a finite number? Next to scores of about 1e4 it is not small enough: "
                       f"{fill_before_scale(d_k)}")
    _blocked_value_far_away(cand, rng)


def _moved_blocked_row(out, out_changed, m, j):
    """The first output row that blocks key j (mask True there) yet moved when only key j's key or value changed,
    or None: a blocked key has no influence at all."""
    rows = np.broadcast_to(m[..., j], out.shape[:-1])
    for idx in np.argwhere(rows):
        idx = tuple(int(i) for i in idx)
        if not allclose(out_changed[idx], out[idx], rtol=1e-9, atol=1e-12, equal_nan=True):
            return idx
    return None


def _blocked_value_far_away(cand, rng):
    """A blocked key's value grown to 1e30 must not move the rows that block it: a finite fill a little below the
    row's scores (its minimum minus 50, say) leaves the key a weight of about exp(-50), and the output moves by 1e8.
    Last in `mask`: at float32 precision a call's tolerance grows with its largest input, here 1e30."""
    batch, t_q, t_k = (2,), 4, 6
    q, k, v = _qkv(rng, batch, t_q, t_k, 4, 3)
    j = int(rng.integers(0, t_k))
    m = _make_mask(rng, (t_q, t_k), j_star=j)
    got = _try(cand, q, k, v, m)
    if isinstance(got, Broke):
        return
    out, label = got
    v_far = v.copy()
    v_far[..., j, :] = 1e30
    out_far, _ = _run(cand, q, k, v_far, m)
    idx = _moved_blocked_row(out, out_far, m, j)
    if idx is not None:
        raise Fail(f"{label}: key {j} is blocked for query row {list(idx)} (mask True), yet setting its value "
                   f"row to 1e30 changed output row {list(idx)} from {fmt(out[idx][0])}, ... to "
                   f"{fmt(out_far[idx][0])}, ...: a blocked key must get weight exactly 0, which a finite fill "
                   "(the row's lowest score minus a margin, say) does not give: use -np.inf")


def _circulant_problem(rng, t, d_k, d_v):
    """q, k whose scores q k^T form a circulant matrix, and v = [I | 0], so the output rows are the weights.

    Every row and every column of a circulant matrix holds the same numbers, so a softmax over the wrong axis
    or with a misplaced max or sum still gives each row softmax(scores / c) for one c: the scale is judged
    on its own, whatever else is wrong.
    """
    g = rng.normal(scale=np.sqrt(d_k), size=t)
    scores = g[(np.arange(t)[None, :] - np.arange(t)[:, None]) % t]
    q = rng.normal(size=(t, d_k))  # d_k >= t: full row rank, so k can give any score matrix
    k = (np.linalg.pinv(q) @ scores).T
    v = np.zeros((t, d_v))
    v[:, :t] = np.eye(t)
    return q, k, v


def _lift(cand, q, k, v):
    """How many leading batch dims of size 1 the candidate needs to take this 2-D problem: 0 when it takes plain 2-D
    arrays, 1 or 2 for code written for (B, T, d) or (B, H, T, d) only (batch-dims reports that), None when none
    works (the other checks report it)."""
    for n in (0, 1, 2):
        one = (1,) * n
        if not isinstance(_try(cand, q.reshape(one + q.shape), k.reshape(one + k.shape), v.reshape(one + v.shape)),
                          Broke):
            return n
    return None


def _run_lifted(cand, n, q, k, v, mask=_NO_MASK):
    """_run on the 2-D problem given n leading batch dims of size 1; the output comes back 2-D."""
    one = (1,) * n
    out, label = _run(cand, q.reshape(one + q.shape), k.reshape(one + k.shape), v.reshape(one + v.shape), mask)
    return out.reshape(out.shape[n:]), label


@invariant("scale", "scores are divided by sqrt(d_k), the width of q and k")
def scale(cand, ref, rng):
    # The divisor is read off the candidate's own weights (v is chosen so the output rows are the weights):
    # within a row, log weight against the raw score q k^T is a line of slope 1/divisor.
    # d_k = 7 is no perfect square: an integer square root (math.isqrt, int(d_k ** 0.5)) shows there.
    for t, d_k, d_v in ((6, 9, 8), (5, 16, 7), (5, 7, 6)):
        q, k, v = _circulant_problem(rng, t, d_k, d_v)
        lift = _lift(cand, q, k, v)
        if lift is None:
            continue  # raises on this problem whatever its batch dims: for the other checks
        out, label = _run_lifted(cand, lift, q, k, v)
        c = softmax_divisor(out[:, :t], q @ k.T)
        right, root = np.sqrt(d_k), fmt(np.sqrt(d_k))
        if c is not None and abs(c - right) <= 1e-4 * right:
            continue
        where = (f"{label} with d_k = {d_k}, d_v = {d_v}, T_q = T_k = {t}, and v = [I | 0] so that each output "
                 "row shows that query's weights over the keys")
        if c is None:
            raise Fail(f"{where}: the weights are not softmax(q k^T / c) over the keys for any single divisor c, "
                       "so the scale cannot be judged on its own; fix the other failures first, then this check "
                       "can read the divisor")
        wrong = [
            (1.0, "1, i.e. not scaled at all", f"divide q k^T by sqrt(d_k) = sqrt({d_k}) = {root}"),
            (float(d_k), f"d_k = {d_k} itself", f"divide by its square root, sqrt(d_k) = {root}"),
            (np.sqrt(d_v), f"sqrt(d_v) = sqrt({d_v}), the width of v",
             f"the scale comes from d_k = q.shape[-1], the width of q and k: sqrt({d_k}) = {root}"),
            (float(d_v), f"d_v = {d_v}, the width of v", f"divide by sqrt(d_k) = sqrt({d_k}) = {root}"),
            (np.sqrt(t), f"sqrt(T_k) = sqrt({t}), from the number of keys",
             f"d_k is q.shape[-1] (or k.shape[-1]), the width of q and k, not k.shape[-2]: divide by "
             f"sqrt({d_k}) = {root}"),
            (float(t), f"T_k = {t}, the number of keys", f"divide by sqrt(d_k) = sqrt({d_k}) = {root}"),
            (1.0 / right, f"1/sqrt(d_k), i.e. multiplied by sqrt(d_k) = {root}", "divide by it instead"),
        ]
        if math.isqrt(d_k) ** 2 != d_k:
            wrong.append((float(math.isqrt(d_k)), f"{math.isqrt(d_k)}, the integer square root of d_k = {d_k}",
                          f"take the real one, np.sqrt(d_k) = {root}"))
        for divisor, what, fix in wrong:
            if abs(c - divisor) <= 1e-4 * divisor:
                raise Fail(f"{where}: the weights are softmax(q k^T / {fmt(c)}), so the scores are divided by "
                           f"{what}; {fix}")
        raise Fail(f"{where}: the weights are softmax(q k^T / {fmt(c)}), expected the scores divided by "
                   f"sqrt(d_k) = sqrt({d_k}) = {root}, with d_k = q.shape[-1]")


_STABLE_FIX = ("subtract each row's maximum (over the keys it may see) from the scores before np.exp, with "
               "axis=-1, keepdims=True; apply the mask before taking that maximum, and keep the computation in "
               "float64")


@invariant("stable", "no overflow when scores are near +-1e4, rows are at very different scales, or each "
                      "row's maximum sits at a random open key, on 2-D, batched and 4-D inputs")
def stable(cand, ref, rng):
    # Every verdict compares the candidate with itself: the same q, k and v at scores of about 1 against the same
    # problem moved to scores of about 1e4 by a change attention must ignore. Where the candidate already gives nan
    # at scores of about 1, or already does not ignore that change there, the other checks report it and this one
    # only asks that the large scores give finite numbers. 2-D and T_q = T_k: batching and shape mistakes still
    # run here (the other checks report them), so only the numerics are judged.
    t, d_k, d_v = 5, 4, 3
    big = 1e4 * np.sqrt(d_k)  # m * u added to the keys moves the scores of a row with along = 1 by m / sqrt(d_k)
    j = int(rng.integers(0, t))
    cases = [
        ("every score moved up by about 1e4", np.ones(t), _NO_MASK, big, None),
        ("every score moved down by about 1e4", np.ones(t), _NO_MASK, -big, None),
        ("query rows at very different scales: each row's scores moved by 5e3, -1e4, 1e4, 10 and -2e3",
         np.array([0.5, -1.0, 1.0, 1e-3, -0.2]), _NO_MASK, big, None),
        ("a (T_q, T_k) mask and every score moved up by about 1e4", np.ones(t),
         _make_mask(rng, (t, t), j_star=j), big, None),
        (f"key {j} scoring about 1e4 above the others, blocked for some queries", np.ones(t),
         _make_mask(rng, (t, t), j_star=j), big, j),
    ]
    lift = _lift(cand, *_qkv(np.random.default_rng(0), (), t, t, d_k, d_v))  # its own rng: the cases keep theirs
    if lift is None:
        return  # raises on a plain problem whatever its batch dims: for the other checks
    for name, along, m, amount, key in cases:
        q, k, v, u = row_shift_problem(rng, t, d_k, d_v, along)
        if key is not None:
            # every value row is the same vector: whatever the weights, if they sum to one the output is that vector
            v = np.repeat(rng.normal(size=(1, d_v)) + 2.0, t, axis=0)
        out0, label = _run_lifted(cand, lift, q, k, v, m)
        if not np.isfinite(out0).all():
            continue  # nan or inf already at scores of about 1: another bug, reported by the other checks
        moved = []
        for a in (2.0 * np.sqrt(d_k) * np.sign(amount), amount):  # the same change at scores of about 1, then 1e4
            k2 = k.copy()
            k2[slice(key, key + 1) if key is not None else slice(None)] += a * u
            moved.append(_run_lifted(cand, lift, q, k2, v, m)[0])
        out_m, out_x = moved
        what = f"{label} with {name}"
        bad = ~np.isfinite(out_x)
        if bad.any():
            i, c = (int(x) for x in np.argwhere(bad)[0])
            raise Fail(f"{what}: output[{i}, {c}] is {fmt(out_x[i, c])} (overflow or 0/0), while the same q, k and "
                       f"v at scores of about 1 give a finite output: {_STABLE_FIX}")
        if key is not None:
            if not allclose(out_m, v, rtol=1e-6, atol=1e-9):
                continue  # the weights do not sum to one even at scores of about 1: for sum-to-one and mask
            check_close(out_x, v, what, context="every value row is the same vector, so every output row must be "
                        f"that vector, as it is at scores of about 1: the weights must sum to one; {_STABLE_FIX}")
            continue
        if not allclose(out_m, out0, rtol=1e-6, atol=1e-9):
            continue  # the candidate does not ignore the change even at scores of about 1: for the other checks
        bad = ~isclose(out_x, out0, rtol=1e-6, atol=1e-9)
        if bad.any():
            i, c = (int(x) for x in np.argwhere(bad)[0])
            raise Fail(f"{what}: output[{i}, {c}] {is_expected(out_x[i, c], out0[i, c])}, what the same "
                       f"call gives at scores of about 1 (the same number is added to every score of query row {i}, "
                       f"which a softmax ignores): {_STABLE_FIX}")
    _stable_peaked(cand, ref, rng, lift)


# (what, batch dims, T_q, T_k, mask shape or None, mask left out): every code path a solution may take.
_PEAKED_PATHS = (
    ("2-D, no mask", (), 12, 16, None, True),
    ("batched (3,), mask=None", (3,), 10, 10, None, False),
    ("batched (3,), one (T_q, T_k) mask", (3,), 10, 13, (10, 13), False),
    ("4-D (2, 3), no mask", (2, 3), 9, 7, None, True),
    ("4-D (2, 3), a (B, 1, 1, T_k) padding mask", (2, 3), 8, 11, (2, 1, 1, 11), False),
)


def _stable_peaked(cand, ref, rng, lift):
    """Scores up to about 1e4 whose largest entry in each row sits at a random open key, far above the rest of
    the row, rows at very different offsets, on every code path (2-D, batched, 4-D; with and without a mask).

    A softmax shifted by the first key's score, the row mean or one global maximum overflows here, and so does
    one stabilised on one path only. Finite numbers are asked wherever an ordinary problem on the same path gives
    them; the values are held to the reference only where the candidate matches it there."""
    d_k, d_v = 4, 3
    for name, batch, t_q, t_k, mshape, left_out in _PEAKED_PATHS:
        m = _make_mask(rng, mshape, j_star=int(rng.integers(0, t_k))) if mshape else (_NO_MASK if left_out else None)
        n = lift if not batch else 0  # a 2-D problem is lifted for code written for batches only (batch-dims)
        q0, k0, v0 = _qkv(rng, batch, t_q, t_k, d_k, d_v)
        base = attempt(_run_lifted, cand, n, q0, k0, v0, m)
        if isinstance(base, Broke) or not np.isfinite(base[0]).all():
            continue  # fails on an ordinary problem on this path: for the other checks
        mask = None if m is _NO_MASK else m
        matches = allclose(base[0], ref.attention(q0, k0, v0, mask), rtol=1e-6, atol=1e-9)
        allowed = True if mask is None else ~np.asarray(mask)
        q, k, _ = peaked_qk(rng, batch, t_q, t_k, d_k, allowed=allowed)
        v = normal(rng, (*batch, t_k, d_v))
        out, label = _run_lifted(cand, n, q, k, v, m)
        scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(d_k)
        if mask is not None:
            scores = np.where(mask, -np.inf, scores)
        what = (f"{label} ({name}) with each query row's largest score at a random open key, up to about 1e4 and "
                "far above the rest of the row")
        bad = ~np.isfinite(out)
        # a batched path that is already wrong on an ordinary problem mixes rows or batch elements (batch-dims
        # reports it): its overflow here is no evidence about the softmax
        if bad.any() and (matches or not batch):
            idx = tuple(int(i) for i in np.argwhere(bad)[0])
            raise Fail(f"{what}: output[{_at(idx)}] is {fmt(out[idx])} (overflow or 0/0) where "
                       f"{peak_text(scores, idx[:-1])}, while an ordinary problem on the same path gives a finite "
                       f"output: {_STABLE_FIX}")
        if not matches:
            continue
        want = ref.attention(q, k, v, mask)
        idx = worst_entry(out, want, 1e-6, 1e-9)
        if idx is not None:
            raise Fail(f"{what}: output[{_at(idx)}] {is_expected(out[idx], want[idx])}, where "
                       f"{peak_text(scores, idx[:-1])}; the same code matches on an ordinary problem on this path: "
                       f"{_STABLE_FIX}")


@invariant("matches-reference", "matches a reference attention to rtol 1e-6, with and without masks, "
                                 "T = 1,031 included")
def matches_reference(cand, ref, rng):
    cases = (((), 5, 5, 4, 4), ((), 3, 8, 6, 2), ((4,), 6, 6, 8, 8), ((2, 3), 5, 7, 4, 6),
             ((1,), 1, 1, 2, 3), ((2, 2, 2), 3, 4, 5, 2))
    for batch, t_q, t_k, d_k, d_v in cases:
        for s in (0.5, 2.0):
            q, k, v = _qkv(rng, batch, t_q, t_k, d_k, d_v, scale=s)
            out, label = _run(cand, q, k, v)
            check_close(out, ref.attention(q, k, v), label)
            if t_k >= 2:
                mshape = (t_q, t_k) if s < 1 else (*batch, t_q, t_k)
                m = _make_mask(rng, mshape, j_star=int(rng.integers(0, t_k))) if t_q * np.prod(batch) >= 2 \
                    else np.zeros(mshape, dtype=bool)
                out, label = _run(cand, q, k, v, m)
                check_close(out, ref.attention(q, k, v, m), label)
    # broadcast masks the cases above do not have: a (B, 1, 1, T_k) padding mask on 4-D inputs, a (1, T_k) mask
    # shared by every query, and a (B, 1, T_q, T_k) mask shared by the heads
    for batch, t_q, t_k, d_k, d_v, mshape in (((2, 3), 4, 6, 5, 3, (2, 1, 1, 6)), ((3,), 5, 4, 3, 2, (1, 4)),
                                              ((2, 2), 3, 5, 4, 4, (2, 1, 3, 5))):
        q, k, v = _qkv(rng, batch, t_q, t_k, d_k, d_v, scale=1.5)
        m = _make_mask(rng, mshape, j_star=int(rng.integers(0, t_k)))
        out, label = _run(cand, q, k, v, m)
        check_close(out, ref.attention(q, k, v, m), label)
    # A query of zeros, and a key of zeros: scores of exactly 0 (see with_zero_rows), with and without a mask.
    for batch, t_q, t_k in (((), 5, 6), ((2,), 4, 4)):
        q, k, v = _qkv(rng, batch, t_q, t_k, 4, 3)
        q, i = with_zero_rows(rng, q)
        k, j = with_zero_rows(rng, k)
        context = f"query {i} and key {j} are all zeros, so their scores are exactly 0; {ZERO_SCORES}"
        m = _make_mask(rng, (t_q, t_k), j_star=j)
        for given in (_NO_MASK, m):
            out, label = _run(cand, q, k, v, given)
            check_close(out, ref.attention(q, k, v) if given is _NO_MASK else ref.attention(q, k, v, given), label,
                        context=context)
    # Long sequences, the mask left out (its default): code that changes precision or method above some length
    # (float32 for long inputs) is right on every small problem above. Scores of about +-25 make float32's
    # rounding show well above rtol 1e-6.
    watch = Stopwatch()

    def long(rung):
        T = rung.value
        q, k, v = normal(rng, (T, 4), scale=5.0), normal(rng, (T, 4), scale=5.0), normal(rng, (T, 3))
        want = meanwhile(ref.attention, q, k, v)
        with watch:
            out, label = _run(cand, q, k, v)
        check_close_fast(out, want(), label)

    up_to_long(long, watch)


@invariant("input-unchanged", "q, k, v and mask are not modified")
def input_unchanged(cand, ref, rng):
    # Arguments are judged after every call that returns; a call that raises is for the other checks (its
    # arguments cannot be read back), so 2-D cases with and without a mask come too.
    q, k, v = _qkv(rng, (2,), 5, 6, 4, 3)
    cases = [("", (q, k, v, _make_mask(rng, (2, 5, 6), j_star=3)))]
    q, k, v = _qkv(rng, (), 4, 4, 3, 2)
    cases.append((" (no mask)", (q, k, v)))
    q, k, v = _qkv(rng, (), 5, 5, 3, 2)
    cases.append((" (2-D, with a mask)", (q, k, v, _make_mask(rng, (5, 5), j_star=1))))
    q, k, v = _qkv(rng, (2, 3), 4, 6, 3, 2)
    cases.append((" (4-D, a (B, 1, 1, T_k) padding mask)", (q, k, v, _make_mask(rng, (2, 1, 1, 6), j_star=2))))
    q, k, v = _qkv(rng, (3,), 1, 4, 2, 3)
    cases.append((" (batched, T_q = 1, mask=None)", (q, k, v, None)))
    for note, args in cases:
        for _ in range(2):  # a second call would see the damage of the first
            got = attempt(cand.call_tracking_args, "attention", *args)
            if isinstance(got, Broke):
                break
            _, after, _ = got
            for name, before, arg in zip(("q", "k", "v", "mask"), args, after, strict=False):
                check_unchanged(before, arg, f"{name} of shape {shape_of(before)}{note}")


# -- known mistakes, recognised by behaviour on these probes --------------------

def _probe_mask(t_q, t_k, shift):
    """A fixed (T_q, T_k) mask: every row has blocked and open keys, and the columns differ."""
    i, j = np.indices((t_q, t_k))
    return (i + 2 * j + shift) % 3 == 0


def probes(rng):
    # 2-D, T_q != T_k, d_k != d_v: the scale, the softmax axis and a default mask show.
    yield "attention", _qkv(rng, (), 4, 6, 3, 5, scale=1.5), {}
    # 2-D and square, with a mask: a missing keepdims broadcasts silently here.
    q, k, v = _qkv(rng, (), 5, 5, 4, 2, scale=1.5)
    yield "attention", (q, k, v, _probe_mask(5, 5, 1)), {}
    # batched, one (T_q, T_k) mask shared by the batch: the mask, np.dot, k.T, softmax over axis 1.
    q, k, v = _qkv(rng, (2,), 5, 7, 4, 3, scale=1.5)
    yield "attention", (q, k, v, _probe_mask(5, 7, 0)), {}
    # B == T_k == d_k: k.T runs without an error here, with the batch and key axes swapped.
    yield "attention", _qkv(rng, (3,), 4, 3, 3, 2), {}
    # 4-D without a mask: axis 1 is a batch axis here.
    yield "attention", _qkv(rng, (2, 3), 4, 6, 5, 2), {}
    # scores near +1e4, and query rows at scales 0, 1, 1e2 and 1e4.
    q, k, v = _qkv(rng, (), 4, 5, 4, 3)
    q[:, 0], k[:, 0] = 2e4, 1.0
    yield "attention", (q, k, v), {}
    q, k, v = _qkv(rng, (), 4, 6, 3, 2)
    q[:, 0], k[:, 0] = np.array([0.0, 1.0, 1e2, 1e4]) * np.sqrt(3.0), 1.0
    yield "attention", (q, k, v), {}
    # with a mask: every score about -1e4 (a fill of -1e4 leaks), then key 2 scoring 1e4 above the others (an
    # added -1e4 leaks; a row maximum taken over the blocked keys too underflows the rows that block key 2)
    for dominant in (False, True):
        yield "attention", (*_big_scores(rng, (), 4, 6, 4, 3, 2, dominant), _probe_mask(4, 6, 1)), {}


def _variant(q, k, v, mask=None, *, divisor=None, fill=-np.inf, invert=False, after=False, axis=-1,
             subtract="row", causal_default=False, sum_axis=None, softmax_dtype=np.float64):
    """Attention with one known mistake switched on (sum_axis: normalise over another axis than the max's)."""
    d_k = q.shape[-1]
    scores = q @ np.swapaxes(k, -1, -2) / (np.sqrt(d_k) if divisor is None else divisor(d_k, v.shape[-1]))
    if mask is None and causal_default:
        mask = np.triu(np.ones(scores.shape[-2:], dtype=bool), k=1)
    if mask is not None and not after:
        scores = np.where(mask, scores, fill) if invert else np.where(mask, fill, scores)
    scores = scores.astype(softmax_dtype)
    if subtract == "row":
        scores = scores - scores.max(axis=axis, keepdims=True)
    elif subtract == "global":
        scores = scores - scores.max()
    w = np.exp(scores)
    w = w / w.sum(axis=axis if sum_axis is None else sum_axis, keepdims=True)
    if mask is not None and after:
        w = np.where(mask, 0.0, w)
    return w.astype(np.float64) @ v


@mistake("missing-scale", "divide the scores q @ k^T by sqrt(d_k), the width of q and k, before the softmax")
def _missing_scale(q, k, v, mask=None):
    return _variant(q, k, v, mask, divisor=lambda d_k, d_v: 1.0)


@mistake("scale-by-d-k", "divide the scores by sqrt(d_k), not by d_k itself")
def _scale_by_d_k(q, k, v, mask=None):
    return _variant(q, k, v, mask, divisor=lambda d_k, d_v: d_k)


@mistake("scale-by-d-v", "divide the scores by sqrt(d_k), the width of q and k (q.shape[-1]), not of the values")
def _scale_by_d_v(q, k, v, mask=None):
    return _variant(q, k, v, mask, divisor=lambda d_k, d_v: np.sqrt(d_v))


@mistake("scale-multiplied", "divide the scores by sqrt(d_k) instead of multiplying them by it")
def _scale_multiplied(q, k, v, mask=None):
    return _variant(q, k, v, mask, divisor=lambda d_k, d_v: 1.0 / np.sqrt(d_k))


@mistake("mask-ignored", "apply the mask: set the scores where it is True to -inf before the softmax")
def _mask_ignored(q, k, v, mask=None):
    return _variant(q, k, v)


@mistake("mask-inverted", "True in the mask means blocked: set the scores to -inf where the mask is True, "
         "not where it is False")
def _mask_inverted(q, k, v, mask=None):
    return _variant(q, k, v, mask, invert=True, fill=-1e9)


@mistake("mask-after-softmax", "mask the scores with -inf before the softmax; zeroing weights afterwards leaves "
         "rows that no longer sum to one")
def _mask_after_softmax(q, k, v, mask=None):
    return _variant(q, k, v, mask, after=True)


@mistake("mask-after-exp", "mask the scores with -inf before taking each row's maximum and exp: a maximum taken "
         "over the blocked keys too can underflow every open key to 0")
def _mask_after_exp(q, k, v, mask=None):
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    if mask is not None:
        e = e * ~np.asarray(mask, dtype=bool)
    return e / e.sum(axis=-1, keepdims=True) @ v


@mistake("mask-fill-too-small", "set the blocked scores to -np.inf (or -1e9), not -1e4: next to scores of about "
         "1e4 a fill of -1e4 leaves the blocked keys with weight")
def _mask_fill_1e4(q, k, v, mask=None):
    return _variant(q, k, v, mask, fill=-1e4)


@mistake("mask-fill-too-small", "set the blocked scores to -np.inf (or -1e9), not -1e4: next to scores of about "
         "1e4 a fill of -1e4 leaves the blocked keys with weight")
def _mask_add_1e4(q, k, v, mask=None):
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores - 1e4 * np.asarray(mask, dtype=np.float64)
    w = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return w / w.sum(axis=-1, keepdims=True) @ v


@mistake("mask-boolean-index", "apply the mask with np.where(mask, -np.inf, scores), which broadcasts; "
         "scores[mask] = -inf needs a mask of exactly the scores' shape")
def _mask_boolean_index(q, k, v, mask=None):
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores[mask] = -np.inf
    w = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return w / w.sum(axis=-1, keepdims=True) @ v


@mistake("causal-by-default", "without a mask every query sees every key: apply a mask only when one is given")
def _causal_by_default(q, k, v, mask=None):
    return _variant(q, k, v, mask, causal_default=True)


@mistake("softmax-over-queries", "take the softmax over the keys, the last axis (axis=-1), not axis -2")
def _softmax_over_queries(q, k, v, mask=None):
    return _variant(q, k, v, mask, axis=-2)


@mistake("softmax-wrong-axis", "take the softmax over the last axis (axis=-1): axis=1 is the key axis only "
         "for 2-D inputs")
def _softmax_axis_one(q, k, v, mask=None):
    return _variant(q, k, v, mask, axis=1)


@mistake("softmax-wrong-axis", "take the softmax over the last axis (axis=-1): axis=1 is the key axis only "
         "for 2-D inputs")
def _softmax_sum_axis_one(q, k, v, mask=None):  # the maximum over the keys, the sum over axis 1
    return _variant(q, k, v, mask, sum_axis=1)


@mistake("softmax-in-float32", "compute the softmax in float64, as its inputs are: float32 keeps about 7 digits, "
         "so scores in the thousands lose digits the tolerance needs (torch: leave out .float())")
def _softmax_float32(q, k, v, mask=None):
    return _variant(q, k, v, mask, softmax_dtype=np.float32)


@mistake("missing-keepdims", "reduce with keepdims=True so each row's max and sum broadcast back over the keys")
def _missing_keepdims(q, k, v, mask=None):
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = np.where(mask, -np.inf, scores)
    w = np.exp(scores - scores.max(axis=-1))
    return w / w.sum(axis=-1) @ v


@mistake("no-max-subtraction", "subtract each row's maximum from the scores before np.exp: scores near 1e4 "
         "overflow")
def _no_max_subtraction(q, k, v, mask=None):
    return _variant(q, k, v, mask, subtract=None)


@mistake("global-max", "subtract the maximum of each row (axis=-1, keepdims=True), not one maximum of all the "
         "scores: a row far below it underflows to 0/0")
def _global_max(q, k, v, mask=None):
    return _variant(q, k, v, mask, subtract="global")


@mistake("transpose-all-axes", "swap only the last two axes of k (np.swapaxes(k, -1, -2)); k.T reverses the "
         "batch axes as well")
def _transpose_all_axes(q, k, v, mask=None):
    return _variant(q, np.swapaxes(k.T, -1, -2), v, mask)


@mistake("np-dot-not-batched", "use the @ operator (np.matmul) for the two products: np.dot on 3-D and 4-D "
         "arrays is not a batched matrix product")
def _np_dot(q, k, v, mask=None):
    scores = np.dot(q, np.swapaxes(k, -1, -2)) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = np.where(mask, -np.inf, scores)
    w = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return np.dot(w / w.sum(axis=-1, keepdims=True), v)


_first_probes = probes


def probes(rng):  # noqa: F811 -- the first probes, then batched scores near +1e4
    yield from _first_probes(rng)
    q, k, v = _qkv(rng, (2,), 4, 5, 4, 3)
    q[..., 0], k[..., 0] = 2e4, 1.0
    yield "attention", (q, k, v), {}


def _att(q, k, v, mask=None, *, d_k=None, shift=None, mask_if=None, dtype=np.float64):
    """Attention with one known mistake switched on: d_k(q, k), shift(raw scores, masked scores), mask_if(mask,
    scores) deciding whether the mask is applied, and the dtype of the arithmetic."""
    q, k, v = (np.asarray(a, dtype=dtype) for a in (q, k, v))
    dk = q.shape[-1] if d_k is None else d_k(q, k)
    s = q @ np.swapaxes(k, -1, -2) / np.asarray(np.sqrt(dk), dtype=dtype)
    m = s if mask is None or (mask_if is not None and not mask_if(mask, s)) else np.where(mask, -np.inf, s)
    e = np.exp(m - (m.max(axis=-1, keepdims=True) if shift is None else shift(s, m)))
    return e / e.sum(axis=-1, keepdims=True) @ v


def _att_with(**switches):
    def attention(q, k, v, mask=None):
        return _att(q, k, v, mask, **switches)
    return attention


_mistake_d_k_axis_one = mistake(
    "d-k-from-axis-one", "read d_k as q.shape[-1]: q.shape[1] is the feature width only for 2-D q")(
    _att_with(d_k=lambda q, k: q.shape[1]))
_mistake_scale_key_count = mistake(
    "scale-by-key-count", "divide the scores by sqrt(d_k) = sqrt(q.shape[-1]), not by the square root of the number "
    "of keys")(_att_with(d_k=lambda q, k: k.shape[-2]))
_mistake_first_key_shift = mistake(
    "shift-by-first-key", "subtract each row's maximum before np.exp, not the first key's score: a larger score in "
    "the row still overflows")(_att_with(shift=lambda s, m: s[..., :1]))
_mistake_mean_shift = mistake(
    "shift-by-mean", "subtract each row's maximum before np.exp, not its mean: a score far above the mean still "
    "overflows")(_att_with(shift=lambda s, m: s.mean(axis=-1, keepdims=True)))
_mistake_max_over_queries = mistake(
    "max-over-queries", "subtract each query row's maximum (axis=-1), not each key column's (axis=-2): a row far "
    "below the others underflows to 0/0")(_att_with(shift=lambda s, m: m.max(axis=-2, keepdims=True)))
_mistake_mask_full_shape = mistake(
    "mask-only-full-shape", "apply any mask that broadcasts to the scores (np.where(mask, -np.inf, scores)), not only "
    "one of their full shape: a shared (T_q, T_k) mask is silently ignored")(
    _att_with(mask_if=lambda mask, s: np.shape(mask) == s.shape))
_mistake_float32 = mistake(
    "float32-arithmetic", "compute in float64: float32 keeps about seven digits, which large scores turn into "
    "visible errors in the weights")(_att_with(dtype=np.float32))


@mistake("scale-folded-in-place", "scale a copy (q / sqrt(d_k)) or the scores, not q with /=, which changes the "
         "caller's queries on every call")
def _att_scale_in_place(q, k, v, mask=None):
    out = _att(q, k, v, mask)
    q /= np.sqrt(q.shape[-1])
    return out


def _att_literal(k_t, axis):
    def attention(q, k, v, mask=None):
        scores = q @ k_t(k) / np.sqrt(q.shape[-1])
        if mask is not None:
            scores = np.where(mask, -np.inf, scores)
        w = np.exp(scores - scores.max(axis=axis, keepdims=True))
        return w / w.sum(axis=axis, keepdims=True) @ v
    return attention


_mistake_only_3d = mistake(
    "only-3d", "swap the last two axes with np.swapaxes(k, -1, -2) and reduce over axis=-1: transpose(0, 2, 1) and "
    "axis=2 fit only 3-D inputs")(_att_literal(lambda k: k.transpose(0, 2, 1), 2))
_mistake_only_4d = mistake(
    "only-4d", "swap the last two axes with np.swapaxes(k, -1, -2): transpose(0, 1, 3, 2) fits only 4-D inputs")(
    _att_literal(lambda k: k.transpose(0, 1, 3, 2), -1))


@mistake("index-broadcast-2d", "reduce with keepdims=True instead of indexing with [:, None], which is keepdims "
                               "only for 2-D scores")
def _att_index_2d(q, k, v, mask=None):
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = np.where(mask, -np.inf, scores)
    w = np.exp(scores - scores.max(axis=-1)[:, None])
    return w / w.sum(axis=-1)[:, None] @ v


@mistake("stable-only-2d", "subtract each row's maximum on the batched path too, not only for 2-D inputs")
def _att_stable_2d(q, k, v, mask=None):
    return _att(q, k, v, mask, shift=None if np.ndim(q) == 2 else (lambda s, m: 0.0))


@mistake("stable-only-unmasked", "subtract each row's maximum on the masked path too (after setting the blocked "
                                 "scores to -inf), not only when no mask is given")
def _att_stable_unmasked(q, k, v, mask=None):
    return _att(q, k, v, mask, shift=None if mask is None else (lambda s, m: 0.0))
