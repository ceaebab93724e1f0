"""Hidden checks for the `moe` exercise: top-k routing and the load-balancing loss."""

import numpy as np

from attnprep import precision
from attnprep.grading import (
    Broke,
    CandidateError,
    Fail,
    allclose,
    as_array,
    as_float,
    attempt,
    check_close,
    check_finite,
    check_shape,
    check_unchanged,
    expect_raises,
    fmt,
    invariant,
    is_expected,
    isclose,
    mistake,
    shape_of,
    unpack,
)
from attnprep.ladders import at_rung, count, f32_exact, off_grid_factors

FUNCTIONS = ("route_top_k", "load_balance_loss")

# (T, d, E, k): k = 1, k = E, T = 1, T < E and T > E, d both above and below E.
CONFIGS = [(6, 4, 8, 2), (1, 3, 4, 1), (10, 5, 6, 6), (7, 8, 16, 4), (5, 2, 3, 3), (12, 6, 5, 1), (9, 7, 10, 3)]
# More experts than a uint8 holds (the experts past 255 get the largest logits): indices stored in a small integer
# type wrap to other experts.
MANY_EXPERTS = (4, 5, 300, 3)


def _softmax(z):
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def _inputs(rng, T, d, E, scale=1.0):
    x = rng.normal(size=(T, d))
    W = rng.normal(scale=scale / np.sqrt(d), size=(d, E))
    return x, W


# Exact ties, judged by the contract alone: "the k highest router logits, highest first" lets any of equal logits
# be taken and listed in any order among themselves (a stable argsort, torch.topk and a heap all differ there), so
# where logits tie, the chosen logits (not the expert ids) must be the k largest, in descending order. (T, d, E, k):
# ties inside the top k and at its boundary, k = 1 and k = E among them.
TIED = [(12, 4, 8, 3), (9, 3, 6, 2), (5, 4, 5, 5), (7, 2, 4, 1), (10, 3, 9, 4)]
# The large rung: 8,191 tokens of 8 experts, 65,528 router logits in one call (a prime count of tokens: routing
# done in chunks of 1,024 tokens has a partial last chunk).
LARGE = (8_191, 6, 8, 3)
# Router logits in the hundreds with the top k close together (float64 results only), (T, d, E, k): k = E among them.
# Random x and W give logits of a few units, where float32's rounding of x or W_router moves the gates by about 1e-7,
# and the peaked and tied rungs are exact in float32 (x on its grid, W the identity or eighths): none shows a float32
# cast before the router matmul. Here it moves each logit by about 1e-5, and the gates by more than rtol 1e-6.
LARGE_LOGITS = [(16, 14, 8, 2), (11, 10, 6, 4), (7, 9, 5, 5)]
LARGE_LOGITS_TEXT = "router logits of 200 to 900 in magnitude, the k chosen within a few units of each other"


TIES = "router logits with exact ties"


def _large_logit_inputs(rng, T, d, E, k, centre=(200.0, 900.0)):
    """x (T, d) and W_router (d, E), both off float32's grid, whose logits are centred at +-200 to +-900 per token
    (`centre`), the k highest 0.1 to 1.5 apart (so no gate is 0 or 1) and every other expert 2 to 8 below the k-th (so
    no rounding reorders the top k)."""
    offset = rng.choice([-1.0, 1.0], size=(T, 1)) * rng.uniform(*centre, size=(T, 1))
    top = -np.cumsum(rng.uniform(0.1, 1.5, size=(T, k)), axis=1)
    rest = top[:, -1:] - rng.uniform(2.0, 8.0, size=(T, E - k))
    logits = np.take_along_axis(np.hstack([top, rest]) + offset, np.argsort(rng.random((T, E)), axis=1), axis=1)
    return off_grid_factors(rng, logits, d)


def _tied_inputs(rng, T, d, E, repeat=True):
    """x of small integers and W of eighths: the router logits are exact in any precision (float32 too) and
    summation order. With `repeat`, some columns of W repeat, so experts (0, 1), (3, 4), ... tie exactly for every
    token; without, ties are only the chance coincidences of eighths, judged the same way."""
    x = rng.integers(-3, 4, size=(T, d)).astype(np.float64)
    W = rng.integers(-16, 17, size=(d, E)) / 8.0
    for e in range(1, E, 3) if repeat else ():
        W[:, e] = W[:, e - 1]
    return x, W


def _route_cases(rng, scale=1.0):
    """(x, W, k, rung label): the configurations of random logits, then those with exact ties."""
    for T, d, E, k in CONFIGS:
        yield (*_inputs(rng, T, d, E, scale), k, "")
    for T, d, E, k in TIED:
        yield (*_tied_inputs(rng, T, d, E), k, TIES)
    T, d, E, k = MANY_EXPERTS
    x, W = _inputs(rng, T, d, E, scale)
    W[:, 256:] *= 20.0  # the experts past 255 reach the largest logits: every token's top k is among them
    yield x, W, k, f"E = {E} experts, the largest logits on experts past 255"


def _ints(value, what):
    """An index array: integers (an int array, or a list of Python ints), as the contract's "(T, k) integers" says.

    Floats that hold whole numbers are refused too: they cannot index the experts (W[idx] raises IndexError)."""
    arr = as_array(value, what)
    if arr.dtype.kind in "iu":
        return arr.astype(np.int64)
    if arr.dtype.kind == "b":
        raise Fail(f"{what} is boolean (dtype {arr.dtype}), expected expert indices")
    arr = as_float(arr, what)
    if not np.all(np.isfinite(arr)) or not np.array_equal(arr, np.round(arr)):
        raise Fail(f"{what} holds non-integer values (dtype {arr.dtype}); expected expert indices")
    raise Fail(f"{what} holds whole numbers as floats (dtype {arr.dtype}); expert indices are integers: an int "
               "array (np.argsort and np.argpartition give int64; np.zeros((T, k), dtype=int) for one you fill) "
               "or a list of ints. Float indices cannot index an array")


def _route(cand, x, W, k):
    """One candidate call: (idx, gates, label), both checked to be (T, k)."""
    T, E = x.shape[0], W.shape[1]
    label = f"route_top_k(x {shape_of(x)}, W_router {shape_of(W)}, k={k})"
    idx, gates = unpack(cand.route_top_k(x, W, k), 2, "route_top_k")
    idx = _ints(idx, f"expert_idx of {label}")
    gates = as_float(gates, f"gates of {label}")
    check_shape(idx, (T, k), f"expert_idx of {label}")
    check_shape(gates, (T, k), f"gates of {label}")
    out = (idx < 0) | (idx >= E)
    if out.any():
        r, j = (int(i) for i in np.argwhere(out)[0])
        raise Fail(f"expert_idx of {label}: token {r}, choice {j} is expert {int(idx[r, j])}, "
                   f"outside 0..{E - 1}")
    return idx, gates, label


def _route_judged(cand, x, W, k):
    """_route, or None when k = E and the call raised: whether k = E is accepted is what `bad-input` judges, and a
    check about which experts are chosen has no evidence from a call that returned nothing."""
    if k != W.shape[1]:
        return _route(cand, x, W, k)
    try:
        return _route(cand, x, W, k)
    except CandidateError as err:
        if err.not_implemented:
            raise
        return None


def _loss(cand, logits, idx, E):
    label = (f"load_balance_loss(router_logits {shape_of(logits)}, expert_idx {shape_of(idx)}, "
             f"n_experts={E})")
    value = as_float(cand.load_balance_loss(logits, idx, E), label)
    if value.ndim != 0:
        raise Fail(f"{label} returned an array of shape {shape_of(value)}, expected one float")
    return float(value), label


def _loss_variants(logits, idx, E):
    """Values that common mistakes produce, to name the mistake in a message."""
    T, k = idx.shape
    P = _softmax(logits).mean(axis=0)
    f = np.bincount(idx.ravel(), minlength=E) / idx.size
    counts = np.bincount(idx.ravel(), minlength=E)
    f_top1 = np.bincount(idx[:, 0], minlength=E) / T
    z = logits - logits.max(axis=0, keepdims=True)
    P_tokens = (np.exp(z) / np.exp(z).sum(axis=0, keepdims=True)).mean(axis=0)
    P_gates = np.zeros(E)
    np.add.at(P_gates, idx.ravel(), _softmax(np.take_along_axis(logits, idx, axis=1)).ravel())
    P_gates /= T
    return {
        "the factor E was left out": float(np.sum(f * P)),
        "P_e was averaged from the raw logits, not from softmax probabilities": float(E * np.sum(f * logits.mean(0))),
        "f_e counts only the first column of expert_idx (the top-1 choice), not all k": float(E * np.sum(f_top1 * P)),
        "f_e is a raw count, not a share of the T*k assignments": float(E * np.sum(counts * P)),
        "the softmax for P_e ran over the tokens (axis 0), not over the experts": float(E * np.sum(f * P_tokens)),
        "P_e sums the probabilities over tokens instead of averaging them": float(E * np.sum(f * P) * T),
        "f_e divides the counts by T (the tokens), not by T*k (the assignments)": float(E * np.sum(counts / T * P)),
        "P_e comes from the gates (a softmax over each token's k chosen experts), not from the softmax over all "
        "E experts": float(E * np.sum(f * P_gates)),
    }


def _check_loss(got, want, label, logits, idx, E, context):
    if isclose(got, want, rtol=1e-6, atol=1e-9):
        return
    guess = ""
    for name, value in _loss_variants(logits, idx, E).items():
        if isclose(got, value, rtol=1e-6, atol=1e-9) and not isclose(value, want, rtol=1e-6, atol=1e-9):
            guess = f"; that is the value you get when {name}"
            break
    raise Fail(f"{label} {is_expected(got, want)} ({context}{guess})")


@invariant("shape", "expert_idx and gates are both (T, k)")
def shape(cand, ref, rng):
    for T, d, E, k in CONFIGS:
        x, W = _inputs(rng, T, d, E)
        _route(cand, x, W, k)


@invariant("top-k", "each token goes to the k experts with the highest router logits (any of tied ones)")
def top_k(cand, ref, rng):
    for x, W, k, rung in _route_cases(rng):
        routed = _route_judged(cand, x, W, k)
        if routed is None:
            continue
        idx, _, label = routed
        _check_top_k(x @ W, idx, k, f"{label}, {rung}" if rung else label)


def _check_top_k(logits, idx, k, label):
    """The chosen logits of every token must be its k largest (as values: any of tied experts may be taken)."""
    E = logits.shape[1]
    for r in range(len(logits)):
        got, top = np.sort(logits[r, idx[r]])[::-1], np.sort(logits[r])[::-1][:k]
        if np.array_equal(got, top):
            continue
        chosen = [int(e) for e in idx[r]]
        want = sorted(int(e) for e in np.argsort(-logits[r], kind="stable")[:k])
        tied = np.sum(logits[r] == top[-1]) > np.sum(top == top[-1])
        want_text = f"experts {want}" + (" (or another of the experts tied at the k-th logit)" if tied else "")
        lowest = sorted(int(e) for e in np.argsort(logits[r])[:k])
        note = "; those are the lowest logits, not the highest" if sorted(chosen) == lowest and k < E else ""
        raise Fail(f"{label}: token {r} went to experts {chosen} with logits "
                   f"[{', '.join(fmt(v) for v in logits[r, idx[r]])}], but the {k} highest logits of that token "
                   f"are [{', '.join(fmt(v) for v in top)}], {want_text}{note}")


@invariant("order", "the k experts of each token are listed highest logit first, with their gates in that order")
def order(cand, ref, rng):
    for x, W, k, rung in _route_cases(rng):
        if k == 1:
            continue
        logits = x @ W
        routed = _route_judged(cand, x, W, k)
        if routed is None:
            continue
        idx, gates, label = routed
        label = f"{label}, {rung}" if rung else label
        chosen = np.take_along_axis(logits, idx, axis=-1)
        for r in range(len(idx)):
            if np.any(np.diff(chosen[r]) > 0):  # equal logits: a repeated expert, see `distinct`
                raise Fail(f"{label}: token {r} lists experts {[int(e) for e in idx[r]]} whose logits are "
                           f"[{', '.join(fmt(v) for v in chosen[r])}]; expected the highest first, descending")
        for r in range(len(idx)):
            if np.any(np.diff(gates[r]) > 1e-12):
                raise Fail(f"{label}: token {r} has gates [{', '.join(fmt(g) for g in gates[r])}] for experts "
                           f"{[int(e) for e in idx[r]]}; gate j belongs to expert_idx[:, j], so they "
                           f"should decrease too")


@invariant("gates-sum-to-one", "each token's k gates are non-negative and sum to one (softmax over the k chosen)")
def gates_sum_to_one(cand, ref, rng):
    for x, W, k, _ in _route_cases(rng, scale=2.0):
        logits = x @ W
        routed = _route_judged(cand, x, W, k)
        if routed is None:
            continue
        idx, gates, label = routed
        check_finite(gates, f"gates of {label}")
        if (gates < 0).any():
            r, j = (int(i) for i in np.argwhere(gates < 0)[0])
            raise Fail(f"gates of {label}: token {r}, choice {j} is {fmt(gates[r, j])}, a negative weight")
        sums = gates.sum(axis=-1)
        bad = ~isclose(sums, 1.0, rtol=0, atol=1e-6)
        if bad.any():
            r = int(np.argmax(bad))
            note = ""
            full = np.take_along_axis(_softmax(logits), idx, axis=-1)
            if allclose(gates[r], full[r], rtol=1e-6, atol=1e-9):
                note = ("; they are the softmax over all E experts; the gates renormalise over the k chosen "
                        "logits only")
            raise Fail(f"gates of {label}: token {r}'s gates sum to {fmt(sums[r])}, expected 1{note}")


@invariant("distinct", "no expert appears twice among one token's k choices")
def distinct(cand, ref, rng):
    for x, W, k, rung in _route_cases(rng):
        if k == 1:
            continue
        routed = _route_judged(cand, x, W, k)
        if routed is None:
            continue
        idx, _, label = routed
        label = f"{label}, {rung}" if rung else label
        for r in range(len(idx)):
            values, counts = np.unique(idx[r], return_counts=True)
            if (counts > 1).any():
                e = int(values[np.argmax(counts)])
                raise Fail(f"{label}: token {r} went to experts {[int(v) for v in idx[r]]}, expert {e} "
                           f"{int(counts.max())} times; each token needs k different experts")


def _usable(result):
    return not isinstance(result, Broke)


def _broken_at_scale(result, label, context):
    """Fail when the call on large logits raised or returned something unreadable (it worked when moderate)."""
    if isinstance(result, Broke) and result.raised:
        raise Fail(f"{label} raised {result.text} with {context}, although the same call with a small shift "
                   "works: exp overflows; subtract each token's maximum logit before np.exp")
    if isinstance(result, Broke):
        raise Fail(f"with {context}: {result.text} (the same call with a small shift is fine)")


def _same_route(a, b):
    return a[0].shape == b[0].shape and np.array_equal(a[0], b[0]) and allclose(a[1], b[1], rtol=1e-6, atol=1e-9)


@invariant("stable", "adding a large constant (up to 1e4) to a token's logits changes neither routing nor loss; "
                     "logits spread over thousands, the largest at a random expert: no overflow")
def stable(cand, ref, rng):
    # Shifting all of a token's logits by one constant changes neither its top k nor any softmax. The candidate
    # is held to its own result without the shift, but only when a small shift (a few units) leaves it
    # unchanged too; a candidate that is not shift-invariant at all fails other invariants, not this one.
    # Not finite with the large shift while finite without it always fails.
    for T, d, E, k in ((6, 4, 8, 2), (5, 3, 4, 4), (7, 5, 6, 1)):
        x, W = _inputs(rng, T, d, E)
        sign = rng.choice([-1.0, 1.0], size=(T, 1))
        small = sign * rng.uniform(1.0, 5.0, size=(T, 1))
        shift = sign * rng.uniform(800.0, 1e4, size=(T, 1))
        # An extra feature that is the shift for every token, with router weights of one: the
        # logits become x @ W + shift, so exp() of them overflows (or underflows) unless shifted.
        W_big = np.vstack([W, np.ones((1, E))])
        context = "each token's logits shifted by a constant between 800 and 1e4 in magnitude"
        plain = attempt(_route, cand, np.hstack([x, np.zeros((T, 1))]), W_big, k)
        if _usable(plain) and np.isfinite(plain[1]).all():
            nudged = attempt(_route, cand, np.hstack([x, small]), W_big, k)
            x_big = np.hstack([x, shift])
            big = attempt(_route, cand, x_big, W_big, k)
            label = f"route_top_k(x {shape_of(x_big)}, W_router {shape_of(W_big)}, k={k})"
            _broken_at_scale(big, label, context)
            idx, gates, _ = plain
            idx_big, gates_big, label_big = big
            check_finite(gates_big, f"gates of {label_big}",
                         f"{context}; finite without it: subtract each token's largest chosen logit before np.exp")
            keeps = _usable(nudged)
            if keeps and np.array_equal(nudged[0], idx) and not np.array_equal(idx_big, idx):
                r = int(np.argmax(np.any(idx != idx_big, axis=-1)))
                raise Fail(f"expert_idx of {label_big}: token {r} is {[int(e) for e in idx_big[r]]}, but "
                           f"{[int(e) for e in idx[r]]} without the shift ({context})")
            if keeps and _same_route(nudged, plain):
                check_close(gates_big, gates, f"gates of {label_big}",
                            context=f"{context}; expected the unshifted gates, which a shift of a few units "
                                    "leaves unchanged: precision is lost at this magnitude")
        logits = x @ W
        want_idx = np.argsort(-logits, axis=-1, kind="stable")[:, :k]
        before = attempt(_loss, cand, logits, want_idx, E)
        if not _usable(before) or not np.isfinite(before[0]):
            continue  # a crash or nan at moderate logits is another bug, not overflow
        big = attempt(_loss, cand, logits + shift, want_idx, E)
        label = (f"load_balance_loss(router_logits {shape_of(logits)}, expert_idx {shape_of(want_idx)}, "
                 f"n_experts={E})")
        _broken_at_scale(big, label, context)
        if not np.isfinite(big[0]):
            raise Fail(f"{label} is {fmt(big[0])} with {context}, but {fmt(before[0])} without the shift: overflow "
                       "in the router softmax; subtract each token's maximum logit before np.exp")
        nudged = attempt(_loss, cand, logits + small, want_idx, E)
        if (_usable(nudged) and isclose(nudged[0], before[0], rtol=1e-6, atol=1e-9)
                and not isclose(big[0], before[0], rtol=1e-6, atol=1e-9)):
            raise Fail(f"{label} is {fmt(big[0])} with {context}, but {fmt(before[0])} without the shift (and "
                       "without a small one); softmax probabilities do not change when a token's logits all move "
                       "together, so precision is lost at this magnitude")
    # Logits spread over thousands within a token, its largest at a random expert, tokens at very different offsets:
    # a softmax shifted by anything but each token's own maximum (the lowest chosen logit, the first expert's, the
    # mean) overflows here, where a shift of the whole row shows nothing.
    for T, E, k in ((9, 6, 3), (7, 8, 2), (6, 5, 1)):
        _peaked_stable(cand, ref, rng, T, E, k)
    for T, E, k in ((7, 6, 2), (6, 8, 3), (5, 9, 4)):
        _spread_gates_stable(cand, ref, rng, T, E, k)


def _peaked_logits(rng, T, E, k, magnitude):
    """x (T, E+1) and W_router (E+1, E) with x @ W_router the logits below, exactly (W is [I; 0]).

    Each token is centred at its own offset (up to +-magnitude); its largest logit sits at a random expert, the rest
    of its top k within 0.3 * magnitude below but the k-th 0.715 to 0.74 times magnitude below, the other experts
    0.9 to 1.8 times below. At magnitude 1e3 a softmax shifted by the lowest chosen logit, the minimum or the first
    expert's logit overflows (exp past 709.8); one shifted by the maximum still gives the k-th expert a probability
    above 0 (exp(-744) is the smallest float64), so ranking by probability still finds the top k.
    """
    offset = rng.uniform(-1.0, 1.0, size=(T, 1)) * magnitude
    chosen = np.hstack([np.zeros((T, 1)), rng.uniform(0.0, 0.3, size=(T, k - 2)),
                        rng.uniform(0.715, 0.74, size=(T, 1))])[:, :k] if k > 1 else np.zeros((T, 1))
    below = np.hstack([chosen, rng.uniform(0.9, 1.8, size=(T, E - k))]) * magnitude
    logits = f32_exact(np.take_along_axis(offset - below, np.argsort(rng.random((T, E)), axis=1), axis=1))
    return np.hstack([logits, np.zeros((T, 1))]), np.vstack([np.eye(E), np.zeros((1, E))])


def _peaked_stable(cand, ref, rng, T, E, k):
    """Routing and loss at peaked logits of magnitude 1e3, held to the reference when the candidate is right on the
    same construction at magnitude 1."""
    x, W = _peaked_logits(rng, T, E, k, 1.0)
    moderate = attempt(_route, cand, x, W, k)
    want = ref.route_top_k(x, W, k)
    x_big, W_big = _peaked_logits(rng, T, E, k, _peaked_magnitude())
    if _usable(moderate) and np.array_equal(moderate[0], want[0]) and allclose(moderate[1], want[1], rtol=1e-6,
                                                                                  atol=1e-9):
        _check_reference_route(cand, ref, x_big, W_big, k, _peaked_text())
    logits = x_big @ W_big
    idx = np.argsort(-logits, axis=-1, kind="stable")[:, :k]
    small = logits / _peaked_magnitude()
    moderate = attempt(_loss, cand, small, idx, E)
    if _usable(moderate) and isclose(moderate[0], ref.load_balance_loss(small, idx, E), rtol=1e-6, atol=1e-9):
        got, label = _loss(cand, logits, idx, E)
        _check_loss(got, ref.load_balance_loss(logits, idx, E), f"{label} with {_peaked_text()}", logits, idx, E,
                    "the same call is right with logits of a few units; subtract each token's maximum logit (over "
                    "all E experts) before np.exp, not its minimum, its first logit or a mean")


def _spread_logits(rng, T, E, k, spread):
    """x (T, E+1) and W_router (E+1, E) as in _peaked_logits, each token's k chosen logits `spread` apart: its
    largest at a random expert, k - 2 within 3 below it, the k-th 1 to 1.5 times `spread` below, the other experts
    100 to 2,000 below that (tokens centred between -1e3 and +1e3)."""
    offset = rng.uniform(-1e3, 1e3, size=(T, 1))
    chosen = np.hstack([np.zeros((T, 1)), rng.uniform(0.0, 3.0, size=(T, k - 2)),
                        spread * rng.uniform(1.0, 1.5, size=(T, 1))])
    rest = chosen[:, -1:] + rng.uniform(100.0, 2_000.0, size=(T, E - k)) * (spread / 4_000.0)
    below = np.hstack([chosen, rest])
    logits = f32_exact(np.take_along_axis(offset - below, np.argsort(rng.random((T, E)), axis=1), axis=1))
    return np.hstack([logits, np.zeros((T, 1))]), np.vstack([np.eye(E), np.zeros((1, E))])


def _spread_gates_stable(cand, ref, rng, T, E, k):
    """Gates when a token's chosen logits lie thousands apart (k >= 2): a softmax over them shifted by their mean
    (or anything but their maximum) overflows once the chosen spread past about 1,420, where the maximum gives the
    far ones a gate of 0. Judged on the gates alone, against the reference, when the candidate is right on the same
    construction with the chosen logits 40 apart: which far expert comes k-th is no concern of this check."""
    x, W = _spread_logits(rng, T, E, k, 40.0)
    moderate = attempt(_route, cand, x, W, k)
    if not _usable(moderate) or not allclose(moderate[1], ref.route_top_k(x, W, k)[1], rtol=1e-6, atol=1e-9):
        return  # wrong at moderate spreads already: the other checks say why
    x_big, W_big = _spread_logits(rng, T, E, k, 4_000.0)
    big = attempt(_route, cand, x_big, W_big, k)
    text = (f"each token's {k} chosen logits 4,000 to 6,000 apart (its largest at a random expert, tokens centred "
            "between -1000 and +1000)")
    label = f"route_top_k(x {shape_of(x_big)}, W_router {shape_of(W_big)}, k={k})"
    _broken_at_scale(big, label, text)
    context = (f"{text}; right when they are 40 apart: subtract each token's largest chosen logit before np.exp, "
               "not their mean or their smallest")
    check_finite(big[1], f"gates of {big[2]}", context)
    check_close(big[1], ref.route_top_k(x_big, W_big, k)[1], f"gates of {big[2]}", context=context)


def _peaked_magnitude() -> float:
    """1e3; 130 for float32 results, whose exp underflows past -103 (so the k-th expert needs a probability above
    0 there) and overflows past 88.7 (so a softmax shifted by the lowest chosen logit, 93 below, still overflows)."""
    return 1e3 if precision.current() == precision.FLOAT64 else 130.0


def _peaked_text() -> str:
    m = _peaked_magnitude()
    return (f"logits spread over {fmt(1.8 * m)} within each token, its largest at a random expert, tokens centred "
            f"between -{fmt(m)} and +{fmt(m)}")


def _balanced_idx(rng, T, E, k):
    """expert_idx (T, k) with distinct experts per row and every expert used T*k/E times."""
    flat = (np.arange(T * k) % E).reshape(T, k)  # consecutive: distinct within a row when k <= E
    return rng.permutation(E)[flat[rng.permutation(T)]]


@invariant("balanced-loss", "the loss is exactly 1.0 for uniform router probabilities and equal assignment counts")
def balanced_loss(cand, ref, rng):
    for T, E, k in ((8, 4, 2), (6, 6, 1), (12, 3, 3), (10, 5, 2), (3, 6, 2)):
        idx = _balanced_idx(rng, T, E, k)
        # Every row constant: uniform probabilities over the experts, whatever the constant.
        logits = np.repeat(rng.normal(scale=3.0, size=(T, 1)), E, axis=1)
        got, label = _loss(cand, logits, idx, E)
        _check_loss(got, 1.0, label, logits, idx, E,
                    f"each expert gets {T * k // E} of the {T * k} assignments and the router gives "
                    f"every expert probability 1/{E}")


@invariant("imbalance", "the loss grows as the router favours a few experts")
def imbalance(cand, ref, rng):
    T, E, k = 64, 8, 2
    noise = rng.normal(size=(T, E))
    favoured = rng.choice(E, size=2, replace=False)
    values, labels = [], []
    for bias in (0.0, 1.0, 2.0, 4.0, 8.0):
        logits = noise.copy()
        logits[:, favoured] += bias
        idx = np.argsort(-logits, axis=-1)[:, :k]
        got, label = _loss(cand, logits, idx, E)
        values.append(got)
        labels.append(f"bias {fmt(bias)}")
    trail = ", ".join(f"{fmt(v)} ({b})" for v, b in zip(values, labels, strict=True))
    where = (f"T={T}, E={E}, k={k}, router logits N(0, 1) plus a bias on experts "
             f"{sorted(int(e) for e in favoured)}, expert_idx their top-{k}")
    if not all(np.isfinite(values)):
        raise Fail(f"load_balance_loss is not finite: {trail} ({where})")
    for a, b, la, lb in zip(values, values[1:], labels, labels[1:], strict=False):
        if not b > a:
            raise Fail(f"load_balance_loss went from {fmt(a)} at {la} to {fmt(b)} at {lb}; it should grow as "
                       f"the router favours two experts more ({trail}; {where})")
    # How much it grows is judged against the candidate's own loss for a perfectly balanced router (1.0 by the
    # contract), so a wrong overall factor (say, E left out) is not blamed here.
    even = _balanced_idx(rng, T, E, k)
    base, _ = _loss(cand, np.zeros((T, E)), even, E)
    if not (np.isfinite(base) and base > 0):
        base = 1.0
    if values[-1] < 2.0 * base:
        raise Fail(f"load_balance_loss is only {fmt(values[-1])} when almost every token goes to the same two of "
                   f"{E} experts, {fmt(values[-1] / base)} times its {fmt(base)} for a perfectly balanced router "
                   f"(equal logits, every expert {T * k // E} of the {T * k} assignments); expected close to "
                   f"{E // 2} times ({trail}; {where})")


def _share_fail(label_a, got_a, label_b, got_b, why):
    raise Fail(f"{label_b} is {fmt(got_b)}, but {label_a} is {fmt(got_a)}; {why}")


@invariant("assignment-share", "f_e is each expert's share of all T*k assignments, every one of the k columns")
def assignment_share(cand, ref, rng):
    # The candidate against itself, with router logits held fixed, so that whatever it makes of P_e cancels out.
    E = 4
    # 1. Which column an assignment sits in must not matter: swapping the k choices of every token keeps each
    #    expert's share of the assignments (and each token's set of experts, so gates-based P_e too).
    for idx in (np.array([[0, 1], [1, 0], [0, 3], [0, 1], [3, 0]]),
                np.array([[2, 0, 1], [2, 1, 3], [0, 3, 1], [1, 2, 0]])):
        T, k = idx.shape
        logits = rng.normal(scale=2.0, size=(T, E))
        logits[:, 2] += 1.0
        got, label = _loss(cand, logits, idx, E)
        rolled = np.roll(idx, 1, axis=1)
        got_r, _ = _loss(cand, logits, rolled, E)
        if not isclose(got, got_r, rtol=1e-6, atol=1e-9):
            raise Fail(f"{label} is {fmt(got)} for expert_idx {idx.tolist()} but {fmt(got_r)} for "
                       f"{rolled.tolist()}, the same choices in another column order (same logits): f_e counts the "
                       f"assignments of every one of the k columns, so the column order cannot matter")
    # 2. A share, not a count: k = 2 with every expert chosen twice as often as with k = 1 gives the same shares.
    #    Every token's logits are equal, so P_e is the same whichever way it is read from them or the gates.
    one = np.array([[0], [1], [0], [2], [0], [3]])
    two = np.concatenate([one, np.array([[1], [0], [3], [0], [2], [0]])], axis=1)  # the same experts, again
    logits = np.repeat(rng.normal(scale=2.0, size=(6, 1)), E, axis=1)
    got_1, label_1 = _loss(cand, logits, one, E)
    got_2, label_2 = _loss(cand, logits, two, E)
    if not isclose(got_2, got_1, rtol=1e-6, atol=1e-9):
        ratio = f" ({fmt(got_2 / got_1)} times as much)" if got_1 != 0 else ""
        raise Fail(f"{label_2} is {fmt(got_2)}, but {label_1} is {fmt(got_1)}{ratio}: with expert_idx "
                   f"{two.tolist()} every expert gets the same share of the T*k = 12 assignments as with "
                   f"{one.tolist()} of T*k = 6, and every token's logits are equal; f_e is a share, so divide the "
                   f"counts by T*k, not by T (and not a raw count)")
    # 3. Every assignment counts once, whatever its gate: with the router logits fixed the loss is linear in f_e,
    #    so the candidate's own loss with every token sent to expert e alone (k = 1, f_e = 1) reads off its
    #    E * P_e, and any expert_idx must give sum_e f_e * that, f_e the plain share of the T*k assignments.
    #    Judged only when those readings follow the softmax over all E logits (else P_e is what is wrong, which
    #    router-probability reports).
    T, k = 6, 2
    logits = rng.normal(scale=2.0, size=(T, E))
    idx = np.argsort(-logits, axis=-1)[:, :k]  # each token's top two, with clearly unequal gates
    readings = np.array([_loss(cand, logits, np.full((T, 1), e), E)[0] for e in range(E)])
    P = _softmax(logits).mean(axis=0)
    if np.isfinite(readings).all() and readings.sum() > 0 and allclose(readings / readings.sum(), P / P.sum(),
                                                                          rtol=1e-6, atol=1e-12):
        got, label = _loss(cand, logits, idx, E)
        f = np.bincount(idx.ravel(), minlength=E) / idx.size
        want = float(np.sum(f * readings))
        if not isclose(got, want, rtol=1e-6, atol=1e-9):
            raise Fail(f"{label} is {fmt(got)} for expert_idx {idx.tolist()}, but {fmt(want)} = sum_e f_e * L_e, "
                       f"where L_e = [{', '.join(fmt(r) for r in readings)}] is its own loss with every token sent to "
                       f"expert e alone and f_e = [{', '.join(fmt(x) for x in f)}] the share of the T*k = {T * k} "
                       f"assignments: the loss is linear in f_e, and every assignment counts once, in whichever "
                       f"column and with whatever gate (do not weight f_e by the gates)")


@invariant("router-probability", "P_e is the mean over tokens of the softmax over all E logits, unchosen experts "
                                 "included")
def router_probability(cand, ref, rng):
    # Every token goes to expert 0 alone, so the loss is E * f_0 * P_0 with f_0 fixed: whatever the candidate makes
    # of f_e and of the factor E, its loss must scale with P_0. At equal logits P_0 = 1/E; expert 2, never chosen,
    # holds much of the router's probability in the probes, so only the softmax over all E logits gives P_0.
    E = 4
    for T in (6, 5):
        idx = np.zeros((T, 1), dtype=np.int64)
        flat = np.repeat(rng.normal(size=(T, 1)), E, axis=1)
        base, label_b = _loss(cand, flat, idx, E)
        logits = rng.normal(scale=0.5, size=(T, E))
        logits[:, 2] += 2.0
        got, label = _loss(cand, logits, idx, E)
        p0 = float(_softmax(logits)[:, 0].mean())
        want = base * E * p0
        if not isclose(got, want, rtol=1e-6, atol=1e-9):
            raise Fail(f"{label} {is_expected(got, want)}: every token goes to expert 0, so the loss is "
                       f"proportional to P_0; with every logit of a row equal (P_0 = 1/{E}) it is {fmt(base)}, and "
                       f"here P_0 = mean over tokens of softmax(router_logits[t])[0] = {fmt(p0)}, {fmt(E * p0)} times "
                       f"1/{E} (expert 2, never chosen, holds much of the probability: the softmax runs over all E "
                       f"logits of a token, unchosen experts included)")


@invariant("bad-input", "k > E and k < 1 raise ValueError (k = 1 and k = E do not)")
def bad_input(cand, ref, rng):
    x, W = _inputs(rng, 4, 3, 5)
    for k in (6, 9, 0, -1):
        expect_raises(cand, "ValueError", "route_top_k", x, W, k,
                      what=f"route_top_k(x (4, 3), W_router (3, 5), k={k}) with 5 experts")
    for k in (5, 1):
        try:
            cand.route_top_k(x, W, k)
        except CandidateError as err:
            if err.not_implemented:
                raise
            raise Fail(f"route_top_k(x (4, 3), W_router (3, 5), k={k}) with 5 experts raised {err.type_name}: "
                       f"{err.text}; k = {k} is allowed (1 <= k <= E)") from None


@invariant("matches-reference", "expert_idx matches a reference (tied logits in any order), gates and the loss to "
                                "rtol 1e-6, up to 8,191 tokens and (float64 results) at router logits in the hundreds")
def matches_reference(cand, ref, rng):
    cases = [(*_inputs(rng, T, d, E, scale), k, "") for T, d, E, k in CONFIGS for scale in (0.5, 3.0)]
    cases += [c for c in _route_cases(rng) if c[3]]  # the tied ones
    for x, W, k, note in cases:
        _check_reference(cand, ref, x, W, k, note)
    # The magnitude rung of `stable`: logits spread over 1,800 within a token, its largest at a random expert.
    for T, E, k in ((9, 6, 3), (7, 8, 2)):
        _check_reference(cand, ref, *_peaked_logits(rng, T, E, k, _peaked_magnitude()), k, _peaked_text())
    if precision.current() == precision.FLOAT64:  # float32 results round these logits by as much as the mistake
        for T, d, E, k in LARGE_LOGITS:
            _check_reference(cand, ref, *_large_logit_inputs(rng, T, d, E, k), k, LARGE_LOGITS_TEXT,
                             context="x and W_router off float32's grid",
                             question="are both used in float64 for x @ W_router?")
    T, d, E, k = LARGE
    with at_rung(f"{count(T)} tokens"):
        # exact logits, so that no rounding of the candidate's own x @ W_router can reorder near-equal ones
        _check_reference(cand, ref, *_tied_inputs(rng, T, d, E, repeat=False), k)
        _check_reference(cand, ref, *_tied_inputs(rng, T, d, E), k, TIES)


def _check_reference(cand, ref, x, W, k, note="", context="", question=""):
    want_idx = _check_reference_route(cand, ref, x, W, k, note, context, question)
    logits = x @ W
    got, label = _loss(cand, logits, want_idx, W.shape[1])
    _check_loss(got, ref.load_balance_loss(logits, want_idx, W.shape[1]), label, logits, want_idx, W.shape[1],
                "router logits x @ W_router, expert_idx their top-k")


def _check_reference_route(cand, ref, x, W, k, note="", context="", question=""):
    """route_top_k against the reference, tied logits in any order; returns the reference's expert_idx."""
    idx, gates, label = _route(cand, x, W, k)
    label = f"{label}, {note}" if note else label
    want_idx, want_gates = ref.route_top_k(x, W, k)
    logits = x @ W
    # The same experts, or experts of exactly the same logits in the same places (a tie broken another way).
    same = np.all((idx == want_idx) | (np.take_along_axis(logits, idx, axis=-1)
                                       == np.take_along_axis(logits, want_idx, axis=-1)), axis=-1)
    repeated = np.any(np.diff(np.sort(idx, axis=-1), axis=-1) == 0, axis=-1)
    if not np.all(same & ~repeated):
        r = int(np.argmax(~(same & ~repeated)))
        raise Fail(f"expert_idx of {label}: token {r} is {[int(e) for e in idx[r]]} with logits "
                   f"[{', '.join(fmt(v) for v in logits[r, idx[r]])}], expected {[int(e) for e in want_idx[r]]} "
                   f"with logits [{', '.join(fmt(v) for v in logits[r, want_idx[r]])}]")
    check_close(gates, want_gates, f"gates of {label}", context=context, question=question)
    return want_idx


@invariant("input-unchanged", "x, W_router, router_logits and expert_idx are not modified")
def input_unchanged(cand, ref, rng):
    for (T, d, E, k), calls in ((CONFIGS[0], 2), (CONFIGS[1], 2), (CONFIGS[2], 2), (LARGE, 1)):  # k = E; 8,191
        x, W = _inputs(rng, T, d, E, scale=3.0)
        for _ in range(calls):  # a second call would see the damage of the first
            try:
                _, after, _ = cand.call_tracking_args("route_top_k", x, W, k)
            except CandidateError as err:
                if err.not_implemented or k != E:
                    raise
                break  # k = E rejected: `bad-input` reports it
            check_unchanged(x, after[0], f"x of shape {shape_of(x)}")
            check_unchanged(W, after[1], f"W_router of shape {shape_of(W)}")
        logits = x @ W
        idx = np.argsort(-logits, axis=-1)[:, :k]
        for _ in range(calls):
            _, after, _ = cand.call_tracking_args("load_balance_loss", logits, idx, E)
            check_unchanged(logits, after[0], f"router_logits of shape {shape_of(logits)}")
            check_unchanged(idx, after[1], f"expert_idx of shape {shape_of(idx)}")


# -- known mistakes, recognised by behaviour on these probes --------------------------

def probes(rng):
    x, W = _inputs(rng, 6, 4, 8, scale=2.0)
    yield "route_top_k", (x, W, 3), {}
    x, W = _inputs(rng, 5, 3, 6)
    yield "route_top_k", (x, W, 2), {}
    # Each token's logits shifted by a constant of magnitude 800 to 1e4 (see `stable`): exp overflows unshifted.
    x, W = _inputs(rng, 5, 4, 6)
    shift = rng.choice([-1.0, 1.0], size=(5, 1)) * rng.uniform(800.0, 1e4, size=(5, 1))
    yield "route_top_k", (np.hstack([x, shift]), np.vstack([W, np.ones((1, 6))]), 2), {}
    x, W = _inputs(rng, 4, 3, 5)
    yield "route_top_k", (x, W, 7), {}  # k > E
    # Hundreds of experts, most of them chosen: np.argpartition leaves so many in no particular order.
    x, W = _inputs(rng, 2, 3, 300)
    yield "route_top_k", (x, W, 280), {}
    x, W = _inputs(rng, 4, 3, 5)
    yield "route_top_k", (x, W, 5), {}  # k = E is allowed
    # Equal logits among the chosen: 3 experts (np.argsort's default sort is stable at that size, so any sort keeps
    # equal logits in expert order).
    ties = np.array([[5.0, 5.0, 1.0], [2.0, 0.0, 2.0], [0.0, 3.0, 3.0], [1.0, 1.0, 1.0]])
    yield "route_top_k", (ties, np.eye(3), 2), {}
    # Chosen logits more than 709 apart: exp of their differences from the smallest overflows.
    x, W = _inputs(rng, 4, 3, 5)
    spread = np.array([[900.0, 0.0, -50.0, 10.0, 5.0]]) * rng.uniform(1.0, 2.0, size=(4, 1))
    yield "route_top_k", (np.hstack([x, spread]), np.vstack([W, np.eye(5)]), 3), {}
    # More than 4,096 tokens, the size of a large batch.
    x, W = _inputs(rng, LARGE_BATCH + 1, 3, 8)
    yield "route_top_k", (x, W, 3), {}

    T, E, k = 7, 5, 2
    logits = rng.normal(scale=2.0, size=(T, E))
    yield "load_balance_loss", (logits, np.argsort(-logits, axis=-1)[:, :k], E), {}
    # Columns with different experts, so the first column alone gives other shares than all of them.
    idx = np.array([[0, 1], [0, 2], [3, 0], [1, 4], [0, 2], [2, 1]])
    yield "load_balance_loss", (rng.normal(size=(6, E)), idx, E), {}
    shift = rng.choice([-1.0, 1.0], size=(T, 1)) * rng.uniform(800.0, 1e4, size=(T, 1))
    yield "load_balance_loss", (logits + shift, np.argsort(-logits, axis=-1)[:, :k], E), {}
    # Integer logits: an in-place softmax (np.exp(z, out=z)) cannot store its floats in them.
    ints = rng.integers(-3, 4, size=(T, E))
    yield "load_balance_loss", (ints, np.argsort(-ints, axis=-1, kind="stable")[:, :k], E), {}
    # One expert's logit 800 above expert 0's in some tokens: a softmax shifted by expert 0's logit overflows.
    lifted = rng.normal(size=(T, E))
    lifted[::2, 3] += 800.0
    yield "load_balance_loss", (lifted, np.argsort(-lifted, axis=-1)[:, :k], E), {}
    # Where one maximum of all the logits is harmless (every token at the same scale) but the two mistakes above
    # are not: every logit near +900 (no shift overflows), and expert 3 800 above the rest in every token (a shift
    # by expert 0's overflows). A file that shifts by the global maximum is right on both, so neither is named.
    near = rng.normal(size=(T, E)) + 900.0
    yield "load_balance_loss", (near, np.argsort(-near, axis=-1)[:, :k], E), {}
    raised = rng.normal(size=(T, E))
    raised[:, 3] += 800.0
    yield "load_balance_loss", (raised, np.argsort(-raised, axis=-1)[:, :k], E), {}
    if precision.current() == precision.FLOAT64:  # float32 results round these logits as the mistakes do
        # Logits in the thousands, x and W_router off float32's grid: a float32 cast of either moves the gates by
        # about 1e-4, well past what tells a mistake from the reference.
        yield "route_top_k", (*_large_logit_inputs(rng, 8, 10, 6, 3, centre=(2_000.0, 9_000.0)), 3), {}


LARGE_BATCH = 4_096


def _gated(logits, idx, shift=True):
    top = np.take_along_axis(logits, idx, axis=1)
    e = np.exp(top - top.max(axis=1, keepdims=True) if shift else top)
    return idx, e / e.sum(axis=1, keepdims=True)


def _checked_logits(x, W_router, k):
    logits = np.asarray(x, dtype=np.float64) @ np.asarray(W_router, dtype=np.float64)
    if not 1 <= k <= logits.shape[1]:
        raise ValueError(f"k={k} is not in 1..{logits.shape[1]}")
    return logits


@mistake("lowest-k", "np.argsort sorts ascending: take the first k columns of np.argsort(-logits) for the k "
                     "highest logits, not the k lowest")
def _lowest_k(x, W_router, k):
    logits = _checked_logits(x, W_router, k)
    return _gated(logits, np.argsort(logits, axis=1)[:, :k])


@mistake("ascending-order", "list each token's k experts highest logit first (np.argsort(-logits)[:, :k]); the last "
                            "k columns of an ascending argsort come lowest first")
def _ascending_order(x, W_router, k):
    logits = _checked_logits(x, W_router, k)
    return _gated(logits, np.argsort(logits, axis=1)[:, -k:])


@mistake("top-k-unsorted", "np.argpartition finds the top k in no particular order: sort those k by their logits, "
                           "highest first")
def _argpartition_unsorted(x, W_router, k):
    logits = _checked_logits(x, W_router, k)
    E = logits.shape[1]
    return _gated(logits, np.argpartition(logits, E - k, axis=1)[:, E - k:])


@mistake("top-expert-repeated", "take k different experts per token: an argmax taken k times returns the same "
                                "expert k times unless the chosen ones are removed")
def _argmax_repeats(x, W_router, k):
    logits = _checked_logits(x, W_router, k)
    return _gated(logits, np.repeat(np.argmax(logits, axis=1)[:, None], k, axis=1))


@mistake("gates-over-all-experts", "take the softmax over the k chosen logits only, so each token's gates sum to "
                                   "one; the softmax over all E experts leaves them short")
def _gates_all_experts(x, W_router, k):
    logits = _checked_logits(x, W_router, k)
    idx = np.argsort(-logits, axis=1, kind="stable")[:, :k]
    z = logits - logits.max(axis=1, keepdims=True)
    return idx, np.take_along_axis(np.exp(z) / np.exp(z).sum(axis=1, keepdims=True), idx, axis=1)


@mistake("no-max-subtraction", "subtract each token's largest chosen logit before np.exp in the gates: logits "
                               "past about 709 overflow")
def _route_no_max_subtraction(x, W_router, k):
    logits = _checked_logits(x, W_router, k)
    return _gated(logits, np.argsort(-logits, axis=1, kind="stable")[:, :k], shift=False)


@mistake("no-validation", "raise ValueError when k < 1 or k > the number of experts, instead of quietly returning "
                          "fewer experts")
def _no_k_check(x, W_router, k):
    logits = np.asarray(x, dtype=np.float64) @ np.asarray(W_router, dtype=np.float64)
    return _gated(logits, np.argsort(-logits, axis=1, kind="stable")[:, :k])


def _loss_with(router_logits, expert_idx, n_experts, *, f=None, P=None, factor=None):
    """load_balance_loss with one known mistake switched on."""
    logits = np.asarray(router_logits, dtype=np.float64)
    idx = np.asarray(expert_idx)
    counts = np.bincount(idx.ravel(), minlength=n_experts)
    f_e = counts / idx.size if f is None else f(idx, counts)
    P_e = _softmax(logits).mean(axis=0) if P is None else P(logits)
    return float((n_experts if factor is None else factor) * np.sum(f_e * P_e))


@mistake("p-from-gates", "P_e is the mean of each token's softmax over all E router logits; the gates, a softmax "
                         "over the k chosen experts only, leave out the probability of the experts not chosen",
         fn="load_balance_loss")
def _p_from_gates(router_logits, expert_idx, n_experts):
    def P(z):
        idx = np.asarray(expert_idx)
        p = np.zeros(n_experts)
        np.add.at(p, idx.ravel(), _softmax(np.take_along_axis(z, idx, axis=1)).ravel())
        return p / z.shape[0]
    return _loss_with(router_logits, expert_idx, n_experts, P=P)


@mistake("f-divided-by-tokens", "divide each expert's assignment count by T*k, the number of assignments, not by T",
         fn="load_balance_loss")
def _f_divided_by_tokens(router_logits, expert_idx, n_experts):
    return _loss_with(router_logits, expert_idx, n_experts, f=lambda idx, counts: counts / idx.shape[0])


@mistake("k-equals-e-rejected", "k may equal E (every token uses every expert): raise only for k > E or k < 1")
def _k_equals_e_rejected(x, W_router, k):
    logits = np.asarray(x, dtype=np.float64) @ np.asarray(W_router, dtype=np.float64)
    if not 1 <= k < logits.shape[1]:
        raise ValueError("k >= E")
    return _gated(logits, np.argsort(-logits, axis=1, kind="stable")[:, :k])


@mistake("no-factor-e", "multiply by n_experts: E * sum_e f_e * P_e is 1 for a perfectly balanced router, without "
                        "the factor it is 1/E", fn="load_balance_loss")
def _no_factor_e(router_logits, expert_idx, n_experts):
    return _loss_with(router_logits, expert_idx, n_experts, factor=1.0)


@mistake("f-counts-top-1-only", "count every one of the k columns of expert_idx for f_e (T*k assignments), not "
                                "only the first choice", fn="load_balance_loss")
def _f_top1_only(router_logits, expert_idx, n_experts):
    return _loss_with(router_logits, expert_idx, n_experts,
                 f=lambda idx, counts: np.bincount(idx[:, 0], minlength=n_experts) / idx.shape[0])


@mistake("f-raw-counts", "divide each expert's assignment count by the T*k assignments: f_e is a share, not a count",
         fn="load_balance_loss")
def _f_raw_counts(router_logits, expert_idx, n_experts):
    return _loss_with(router_logits, expert_idx, n_experts, f=lambda idx, counts: counts)


@mistake("p-from-raw-logits", "average the softmax probabilities of the router logits for P_e, not the raw logits",
         fn="load_balance_loss")
def _raw_logits_p(router_logits, expert_idx, n_experts):
    return _loss_with(router_logits, expert_idx, n_experts, P=lambda z: z.mean(axis=0))


@mistake("softmax-wrong-axis", "take the router softmax over the experts (axis=-1) for each token, not over the "
                               "tokens (axis 0)", fn="load_balance_loss")
def _softmax_token_axis(router_logits, expert_idx, n_experts):
    return _loss_with(router_logits, expert_idx, n_experts,
                 P=lambda z: (np.exp(z - z.max(axis=0)) / np.exp(z - z.max(axis=0)).sum(axis=0)).mean(axis=0))


@mistake("sum-instead-of-mean", "average the router probabilities over the tokens for P_e (mean over axis 0), not "
                                "sum them", fn="load_balance_loss")
def _p_summed(router_logits, expert_idx, n_experts):
    return _loss_with(router_logits, expert_idx, n_experts, P=lambda z: _softmax(z).sum(axis=0))


@mistake("loss-no-max-subtraction", "subtract each token's maximum logit before np.exp in the loss's softmax: "
                                    "logits past about 709 overflow", fn="load_balance_loss")
def _loss_no_max_subtraction(router_logits, expert_idx, n_experts):
    return _loss_with(router_logits, expert_idx, n_experts,
                 P=lambda z: (np.exp(z) / np.exp(z).sum(axis=-1, keepdims=True)).mean(axis=0))


@mistake("logits-modified-in-place", "leave router_logits as passed: a softmax computed in place (-=, out=) "
                                     "overwrites the caller's logits; compute into a new array",
         fn="load_balance_loss")
def _softmax_in_place(router_logits, expert_idx, n_experts):
    # The caller's own logits, as the mistake has them: integer ones cannot take the floats, and float ones show
    # the change after the call (which also keeps a file that merely refuses integers from matching).
    z = router_logits if isinstance(router_logits, np.ndarray) else np.array(router_logits)
    z -= z.max(axis=-1, keepdims=True)
    np.exp(z, out=z)
    z /= z.sum(axis=-1, keepdims=True)
    return _loss_with(z, expert_idx, n_experts, P=lambda p: p.mean(axis=0))


@mistake("top-k-unsorted", "np.argpartition finds the top k in no particular order: sort those k by their logits, "
                           "highest first")
def _argpartition_unsorted_large(x, W_router, k):
    # The same mistake on a fast path for large batches: judged on the probe of more than 4,096 tokens alone.
    logits = _checked_logits(x, W_router, k)
    if logits.shape[0] <= LARGE_BATCH:
        return _gated(logits, np.argsort(-logits, axis=1, kind="stable")[:, :k])
    return _argpartition_unsorted(x, W_router, k)


@mistake("gates-not-sorted-with-experts", "take the gates in the same order as the expert indices: gates computed "
                                          "from the argpartition columns before sorting them belong to other experts")
def _gates_unsorted(x, W_router, k):
    logits = _checked_logits(x, W_router, k)
    E = logits.shape[1]
    part = np.argpartition(logits, E - k, axis=1)[:, E - k:]
    top = np.take_along_axis(logits, part, axis=1)
    g = np.exp(top - top.max(axis=1, keepdims=True))
    return np.take_along_axis(part, np.argsort(-top, axis=1), axis=1), g / g.sum(axis=1, keepdims=True)


@mistake("gates-sigmoid", "the gates are a softmax over the k chosen logits, summing to one per token, not a "
                          "sigmoid of each logit on its own")
def _gates_sigmoid(x, W_router, k):
    logits = _checked_logits(x, W_router, k)
    idx = np.argsort(-logits, axis=1, kind="stable")[:, :k]
    return idx, 1.0 / (1.0 + np.exp(-np.take_along_axis(logits, idx, axis=1)))


@mistake("router-scaled-by-sqrt-d", "the router logits are x @ W_router as they are: dividing by sqrt(d) is "
                                    "attention's scale and flattens the gates")
def _router_scaled(x, W_router, k):
    x = np.asarray(x, dtype=np.float64)
    logits = _checked_logits(x, W_router, k) / np.sqrt(x.shape[1])
    return _gated(logits, np.argsort(-logits, axis=1, kind="stable")[:, :k])


@mistake("gates-shift-by-min", "subtract each token's LARGEST chosen logit before np.exp: shifted by the smallest, "
                               "chosen logits more than about 709 apart overflow")
def _gates_shift_by_min(x, W_router, k):
    logits = _checked_logits(x, W_router, k)
    idx = np.argsort(-logits, axis=1, kind="stable")[:, :k]
    top = np.take_along_axis(logits, idx, axis=1)
    e = np.exp(top - top.min(axis=1, keepdims=True))
    return idx, e / e.sum(axis=1, keepdims=True)


@mistake("k-equals-e-unsorted", "with k = E every expert is chosen, but still in order of their logits, highest "
                                "first, with the softmax over them in that order")
def _k_equals_e_unsorted(x, W_router, k):
    logits = _checked_logits(x, W_router, k)
    E = logits.shape[1]
    if k == E:
        z = np.exp(logits - logits.max(axis=1, keepdims=True))
        return np.tile(np.arange(E), (logits.shape[0], 1)), z / z.sum(axis=1, keepdims=True)
    return _gated(logits, np.argsort(-logits, axis=1, kind="stable")[:, :k])


@mistake("equal-logits-dropped", "remove each chosen expert by its index, not by its logit's value: experts with "
                                 "equal logits are different experts and each may be chosen")
def _remove_by_value(x, W_router, k):
    logits = _checked_logits(x, W_router, k)
    T = logits.shape[0]
    remaining, idx = logits.copy(), np.zeros((T, k), dtype=int)
    for j in range(k):
        best = remaining.argmax(axis=1)
        idx[:, j] = best
        remaining = np.where(remaining == remaining[np.arange(T), best][:, None], -np.inf, remaining)
    return _gated(logits, idx)


@mistake("equal-logits-dropped", "remove each chosen expert by its index, not by its logit's value: experts with "
                                 "equal logits are different experts and each may be chosen")
def _distinct_values(x, W_router, k):
    logits = _checked_logits(x, W_router, k)
    E, idx = logits.shape[1], []
    for row in logits.tolist():
        experts = [row.index(v) for v in sorted(set(row), reverse=True)][:k]
        idx.append(experts + [e for e in range(E) if e not in experts][:k - len(experts)])
    return _gated(logits, np.array(idx))


@mistake("f-gate-weighted", "f_e counts assignments: every one of the T*k entries of expert_idx counts 1, whatever "
                            "its gate", fn="load_balance_loss")
def _f_gate_weighted(router_logits, expert_idx, n_experts):
    def f(idx, counts):
        share = np.zeros(n_experts)
        np.add.at(share, idx.ravel(), _softmax(np.take_along_axis(
            np.asarray(router_logits, dtype=np.float64), idx, axis=1)).ravel())
        return share / idx.shape[0]
    return _loss_with(router_logits, expert_idx, n_experts, f=f)


@mistake("loss-shift-by-first", "subtract each token's MAXIMUM logit in the loss's softmax: shifted by expert 0's, "
                                "a logit more than about 709 above it overflows", fn="load_balance_loss")
def _loss_shift_by_first(router_logits, expert_idx, n_experts):
    def P(z):
        e = np.exp(z - z[:, :1])
        return (e / e.sum(axis=-1, keepdims=True)).mean(axis=0)
    return _loss_with(router_logits, expert_idx, n_experts, P=P)


@mistake("router-input-float32", "compute the router logits x @ W_router in float64: x rounded to float32 first moves "
         "logits in the hundreds, and the gates with them, by far more than float64's rounding")
def _router_input_float32(x, W_router, k):
    return _routed(np.asarray(x).astype(np.float32) @ np.asarray(W_router, dtype=np.float64), k)


@mistake("router-weights-float32", "compute the router logits x @ W_router in float64: W_router rounded to float32 "
         "first moves logits in the hundreds, and the gates with them, by far more than float64's rounding")
def _router_weights_float32(x, W_router, k):
    return _routed(np.asarray(x, dtype=np.float64) @ np.asarray(W_router).astype(np.float32), k)


def _routed(logits, k):
    """route_top_k from these logits, as the reference routes its own."""
    if not 1 <= k <= logits.shape[1]:
        raise ValueError(f"k={k} is not in 1..{logits.shape[1]}")
    return _gated(logits, np.argsort(-logits, axis=-1, kind="stable")[:, :k])
