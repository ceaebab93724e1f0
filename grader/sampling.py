"""Hidden checks for the `sampling` exercise."""

import itertools

import numpy as np

from attnprep import precision
from attnprep.grading import (
    Broke,
    CandidateError,
    Fail,
    allclose,
    as_float,
    attempt,
    check_close,
    check_finite,
    check_shape,
    expect_raises,
    fmt,
    invariant,
    mistake,
    rng_spec,
    shape_of,
    worst_entry,
)
from attnprep.ladders import (
    Rung,
    beyond_f32,
    f32_exact,
    first_failing,
    spiky_rows,
    temperatures,
    tied_logits,
    to_edge,
    top_ps,
    without_defaults,
)
from attnprep.wire import Unsupported

FUNCTIONS = ("sampling_probs", "sample")


def _logit_rounding(args, kwargs):
    """At float32 each probability is off by as much as logits / temperature round (attnprep.precision)."""
    logits = args[0] if args else kwargs.get("logits", 0.0)
    t = args[1] if len(args) > 1 else kwargs.get("temperature", 1.0)
    t = float(t) if isinstance(t, (int, float)) and t > 0 else 1.0
    return precision.rounding_of(logits) / t


FLOAT32_ROUNDING = {"sampling_probs": _logit_rounding}

# The worked example of the instructions and the figures it must reproduce.
EXAMPLE_LOGITS = np.array([8.2, 6.9, 5.4, 4.8, 4.1, 3.7, 2.2, 1.0])
EXAMPLE_TOP = {0.5: 0.9264, 1.0: 0.7155, 1.5: 0.5495}  # top token's probability at each temperature
EXAMPLE_TEXT = "the example logits [8.2, 6.9, 5.4, 4.8, 4.1, 3.7, 2.2, 1.0]"

# Random top_p values stay this far from every cumulative sum, so that rounding
# in a different (correct) order of operations can never flip a token in or out.
KNIFE_EDGE = 1e-6

RENORMALISED = "expected softmax(logits / temperature) on the kept tokens, renormalised to sum to one"
OWN_RENORMALISED = ("expected what your sampling_probs gives without this filter, on the kept tokens, renormalised "
                    "to sum to one")

# A correct sampler fails the distribution check with probability below this.
FALSE_ALARM = 1e-7


# -- helpers ---------------------------------------------------------------------

def _kwargs(temperature=1.0, top_k=None, top_p=None):
    """The keyword arguments of a call; temperature None leaves it out (the documented default, 1.0)."""
    kw = {} if temperature is None else {"temperature": temperature}
    if top_k is not None:
        kw["top_k"] = top_k
    if top_p is not None:
        kw["top_p"] = top_p
    return kw


def _label(fn, logits, kw, what="logits"):
    parts = [f"{what} of shape {shape_of(logits)}"] + [f"{k}={fmt(v)}" for k, v in kw.items() if k != "rng"]
    return f"{fn}({', '.join(parts)})"


def _probs(cand, logits, what="logits", **kw):
    """Call the candidate's sampling_probs; return (probs as float64, label)."""
    label = _label("sampling_probs", logits, kw, what)
    out = as_float(cand.sampling_probs(logits, **kw), label)
    check_shape(out, logits.shape, label)
    return out, label


def _softmax(z):
    e = np.exp(z - z.max())
    return e / e.sum()


def _safe_top_p(rng, ref, logits, lo, hi, temperature=1.0, top_k=None):
    """A top_p in [lo, hi] not within KNIFE_EDGE of any cumulative sum the filter looks at."""
    probs = ref.sampling_probs(logits, temperature, top_k)
    cum = np.cumsum(np.sort(probs)[::-1])
    while True:  # the cumulative sums are a handful of points: almost every draw is far from all of them
        p = float(rng.uniform(lo, hi))
        if np.min(np.abs(cum - p)) > KNIFE_EDGE:
            return p


def _cumulative_text(probs, top_p, most=6):
    """'0.7155, 0.9105, 0.954, ...' for the most probable tokens, up to a bit past top_p."""
    cum = np.cumsum(np.sort(probs)[::-1])
    n = min(len(cum), max(int(np.searchsorted(cum, top_p)) + 2, 2), most)
    return ", ".join(fmt(c) for c in cum[:n]) + (", ..." if n < len(cum) else "")


def _rank_text(i, before):
    rank = int(np.sum(before > before[i]) + 1)
    return f"token {i} (probability {fmt(before[i])} before filtering, rank {rank} of {len(before)})"


def _tokens(n):
    return f"{n} token" + ("" if n == 1 else "s")


def _distribution(q):
    """q renormalised, or None when it is no distribution at all (nan, negative, nothing left)."""
    q = np.asarray(q, dtype=np.float64)
    if q.ndim != 1 or not np.all(np.isfinite(q)) or (q < 0).any() or not q.sum() > 0:
        return None
    return q / q.sum()


def _own_filter(q, top_k=None, top_p=None, as_is=False):
    """The filter applied to a distribution q (the candidate's own, renormalised), as the contract states it:
    keep the top_k most probable, renormalise, then the smallest most-probable set reaching top_p, renormalise.
    None when q is no distribution, or a tie or a cumulative sum sits at a cut (the kept set is then not clear).
    as_is: top_p measured on q as it stands, for a q that does not sum to one (the business of `sum-to-one`)."""
    out = _distribution(q)
    if out is None:
        return None
    if as_is:
        out = np.asarray(q, dtype=np.float64).copy()
    if top_k is not None and top_k < len(out):
        order = np.argsort(-out, kind="stable")
        if out[order[top_k - 1]] == out[order[top_k]]:
            return None
        out[order[top_k:]] = 0.0
        out /= out.sum()
    if top_p is not None:
        order = np.argsort(-out, kind="stable")
        cum = np.cumsum(out[order])
        if np.min(np.abs(cum - top_p)) <= KNIFE_EDGE:
            return None
        keep = int(np.searchsorted(cum, top_p)) + 1
        if keep < len(out) and out[order[keep - 1]] == out[order[keep]]:
            return None
        out[order[keep:]] = 0.0
        out /= out.sum()
    return out


def _check_kept(out, want, before, label, why):
    """The candidate keeps (gives nonzero probability to) exactly the tokens the reference keeps."""
    got_set, want_set = out > 0, want > 0
    n_got, n_want = int(got_set.sum()), int(want_set.sum())
    if n_got != n_want:
        raise Fail(f"{label} kept {_tokens(n_got)} with nonzero probability, expected {_tokens(n_want)}: {why}")
    if (got_set != want_set).any():
        extra = int(np.flatnonzero(got_set & ~want_set)[0])
        missing = int(np.flatnonzero(want_set & ~got_set)[0])
        raise Fail(f"{label} kept {_rank_text(extra, before)} but dropped {_rank_text(missing, before)}: {why}")


def _token(value, V, label, loose=False):
    """A sampled token id: a Python or NumPy integer (0-d integer arrays too) in range(V).

    loose: also read a one-element integer array as its token, for checks about which tokens are drawn (what type
    sample returns is the business of `token-id`).
    """
    if isinstance(value, Unsupported):
        raise Fail(f"{label} returned {value}, expected an int token id")
    if loose and isinstance(value, np.ndarray) and value.size == 1 and value.dtype.kind in "iu":
        value = value.reshape(())
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        kind = f"an array of shape {shape_of(value)}" if isinstance(value, np.ndarray) else \
            f"{type(value).__name__} {value!r}"
        how = "int(...) of the index drawn"
        if isinstance(value, np.ndarray) and value.shape == (1,):  # torch.multinomial(probs, 1) is one of these
            how += "; in PyTorch, `.item()` of torch.multinomial's result, which has shape (1,)"
        raise Fail(f"{label} returned {kind}, expected a single int token id ({how})")
    if not 0 <= int(value) < V:
        raise Fail(f"{label} returned token {int(value)}, outside range({V})")
    return int(value)


def _draws(cand, n, logits, kw, seed):
    """n calls of sample on one generator seeded with `seed`, as token ids."""
    label = _label("sample", logits, {**kw, "rng": None}) + f" with rng=np.random.default_rng({seed})"
    raw = cand.repeat(n, "sample", logits, rng=rng_spec(seed), **kw)
    if not isinstance(raw, list) or len(raw) != n:
        raise Fail(f"{label} repeated {n} times did not give {n} results")
    return np.array([_token(v, len(logits), label, loose=True) for v in raw]), label


def _binomial_band(n, p, alpha):
    """Counts k in [lo, hi] pass; a Binomial(n, p) count falls outside with probability <= alpha.

    Chernoff: P(X >= k) <= exp(-n KL(k/n || p)) for k >= np, and the same below, so
    rejecting where n KL >= log(2 / alpha) has each tail below alpha / 2.
    """
    k = np.arange(n + 1)
    q = k / n
    with np.errstate(divide="ignore", invalid="ignore"):
        kl = np.where(q > 0, q * np.log(q / p), 0.0) + np.where(q < 1, (1 - q) * np.log((1 - q) / (1 - p)), 0.0)
    ok = np.flatnonzero(n * kl < np.log(2.0 / alpha))
    return int(ok.min()), int(ok.max())


def _check_tied_cut(out, q, n, label, what):
    """`out` keeps n tokens of q where the n-th and the (n+1)-th most probable tie, renormalised: every token above
    the tie, and either any of the tied ones up to n tokens or all of them (the contract does not say which of tied
    tokens stay; a threshold at the n-th value keeps them all, as Hugging Face's top-k does). Fewer than n, or a
    token below the tie, is wrong either way."""
    cut = np.sort(q)[::-1][n - 1]
    above, tied, kept = q > cut, q == cut, out > 0
    tied_text = ", ".join(str(int(i)) for i in np.flatnonzero(tied))
    why = (f"{what} keeps the {_tokens(int(above.sum()))} above the tie and {n - int(above.sum())} of the tied "
           f"tokens {tied_text} (probability {fmt(cut)} each), or all of them: {n} or {int((above | tied).sum())} "
           "tokens")
    if (above & ~kept).any() or (kept & ~(above | tied)).any():
        miss = np.flatnonzero(above & ~kept)
        extra = np.flatnonzero(kept & ~(above | tied))
        i = int(miss[0]) if miss.size else int(extra[0])
        raise Fail(f"{label} {'dropped' if miss.size else 'kept'} {_rank_text(i, q)}: {why}")
    if int(kept.sum()) not in (n, int((above | tied).sum())):
        raise Fail(f"{label} kept {_tokens(int(kept.sum()))} with nonzero probability: {why}")
    check_close(out, np.where(kept, q, 0.0) / q[kept].sum(), label, context=OWN_RENORMALISED)


# -- checks ----------------------------------------------------------------------

@invariant("sum-to-one", "sampling_probs returns probabilities summing to one, with or without filters")
def sum_to_one(cand, ref, rng):
    cases = [(1, 1.0, None, None), (2, 0.7, None, None), (8, 1.0, 3, None), (8, 1.3, None, "p"),
             (13, 0.8, 5, "p"), (40, 2.0, 10, None), (5, 1.0, 9, None)]
    for V, temperature, top_k, top_p in cases:
        logits = rng.normal(scale=2.0, size=V)
        if top_p:
            top_p = _safe_top_p(rng, ref, logits, 0.3, 0.95, temperature, top_k)
        out, label = _probs(cand, logits, **_kwargs(temperature, top_k, top_p))
        total = out.sum()
        if not abs(total - 1.0) <= 1e-6:
            raise Fail(f"{label} sums to {fmt(total)}, expected 1 (renormalise after every filter)")


@invariant("non-negative", "every probability is >= 0 (and not nan)")
def non_negative(cand, ref, rng):
    cases = [(6, 1.0, None, None), (9, 0.5, 4, None), (9, 1.5, None, 0.8), (12, 1.0, 6, 0.7)]
    for V, temperature, top_k, top_p in cases:
        logits = rng.normal(scale=15.0, size=V) - 40.0
        out, label = _probs(cand, logits, **_kwargs(temperature, top_k, top_p))
        bad = np.isnan(out) | (out < 0)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise Fail(f"{label}: entry [{i}] is {fmt(out[i])}, not a probability")


@invariant("temperature", "temperature divides the logits before the softmax (the example's figures)")
def temperature(cand, ref, rng):
    for t, figure in EXAMPLE_TOP.items():
        out, label = _probs(cand, EXAMPLE_LOGITS, what="the example logits", temperature=t)
        if not abs(out[0] - figure) < 5e-5:
            raise Fail(f"{label}: the top token has probability {fmt(out[0])}, expected {figure} "
                       f"(softmax of logits / temperature, for {EXAMPLE_TEXT})")
    for t in (0.25, 0.6, 2.0, 4.0):
        logits = rng.normal(scale=1.5, size=int(rng.integers(3, 9)))
        out, label = _probs(cand, logits, temperature=t)
        check_close(out, _softmax(logits / t), label, context="expected softmax(logits / temperature)")

    # The sweep across (0, 2]: logits spread about 2 * t apart, so that every temperature gives a distribution
    # neither flat nor one-hot. Only temperature 0 is greedy; 0.001 is not, nor is it clipped to some floor.
    def judge(rung):
        t = rung.value
        logits = t * rng.normal(scale=2.0, size=9) + rng.uniform(-3.0, 3.0)
        out, label = _probs(cand, logits, temperature=t)
        check_close(out, _softmax(logits / t), label, context="expected softmax(logits / temperature): only "
                                                              "temperature 0 means greedy")
    first_failing(temperatures(), judge)
    logits = rng.normal(scale=1.5, size=7)
    out, label = _probs(cand, logits)
    check_close(out, _softmax(logits), label + " with temperature, top_k and top_p left out",
                context="the documented defaults are temperature=1.0 and no filter: expected softmax(logits)")


@invariant("greedy", "temperature 0 gives a one-hot at the first argmax, whatever the filters")
def greedy(cand, ref, rng):
    cases = []
    for V in (7, 12):
        logits = rng.normal(size=V)
        first, second = sorted(rng.choice(V, size=2, replace=False))
        logits[first] = logits[second] = logits.max() + 1.0  # a tie: the first one wins
        cases.append(logits)
    cases += [np.array([0.3]), rng.normal(size=5) - 50.0]
    filters = [{}, {"top_k": 3}, {"top_p": 0.5}, {"top_k": 2, "top_p": 0.3}]
    for i, logits in enumerate(cases):
        for t in (0, 0.0):
            kw = {"temperature": t, **filters[i % len(filters)]}
            out, label = _probs(cand, logits, **kw)
            want = np.zeros(len(logits))
            want[int(np.argmax(logits))] = 1.0
            check_finite(out, label, "temperature 0 must not be divided by: it means greedy")
            check_close(out, want, label, context=f"temperature 0 is a one-hot at the first index of the "
                                                  f"largest logit, here {int(np.argmax(logits))}")
    logits = cases[0]
    draws, label = _draws(cand, 5, logits, {"temperature": 0.0}, int(rng.integers(2**31)))
    if (draws != np.argmax(logits)).any():
        raise Fail(f"{label} drew token {int(draws[draws != np.argmax(logits)][0])}, expected always "
                   f"{int(np.argmax(logits))} (greedy: the first argmax)")


@invariant("top-k", "top_k keeps exactly the k most probable tokens (all when k >= V) and renormalises")
def top_k(cand, ref, rng):
    cases = [(np.array([3.0, 1.0, 1.0, 0.0, -1.0]), 1.0, 3)]  # tied tokens, but not at the cut
    for V, t, k in ((8, 1.0, 3), (8, 0.7, 1), (11, 1.3, 5), (6, 1.0, 5), (6, 1.0, 6), (4, 1.0, 9), (30, 1.0, 12)):
        cases.append((rng.normal(scale=2.0, size=V), t, k))
    # Judged against the candidate's own unfiltered distribution (sampling_probs without filters), so a wrong
    # temperature or softmax is not blamed here.
    for logits, t, k in cases:
        unfiltered, _ = _probs(cand, logits, temperature=t)
        out, label = _probs(cand, logits, temperature=t, top_k=k)
        want = _own_filter(unfiltered, top_k=k)
        before, context = _distribution(unfiltered), OWN_RENORMALISED
        if want is None:
            want, before, context = ref.sampling_probs(logits, t, k), _softmax(logits / t), RENORMALISED
        n = min(k, len(logits))
        _check_kept(out, want, before, label, f"top_k={k} keeps the {n} most probable of {len(logits)} tokens")
        check_close(out, want, label, context=context)
    # A tie at the cut: the k-th and the (k+1)-th most probable tokens have equal logits. Every token above the tie
    # stays, and k of them in all or every tied one (the contract does not say which); a threshold strictly above
    # the (k+1)-th value keeps k - 1. Judged on the candidate's own unfiltered distribution, where the tie is exact.
    for V, k, t in ((9, 3, 1.0), (12, 5, 0.7), (6, 1, 1.3)):
        logits = tied_logits(rng, V, k)
        unfiltered = attempt(_probs, cand, logits, temperature=t)
        q = None if isinstance(unfiltered, Broke) else _distribution(unfiltered[0])
        if q is None:
            continue  # no distribution to filter: sum-to-one and non-negative report it
        out, label = _probs(cand, logits, temperature=t, top_k=k)
        _check_tied_cut(out, q, k, label, f"top_k={k}")


def _top_p_case(cand, ref, logits, what, t, k, p, text, before_p=None):
    """top_p judged against the candidate's own distribution with every filter but top_p: that distribution is
    what top-p measures, so a wrong temperature or top-k is not blamed here. `before_p`: that distribution, when
    a sweep of top_p over the same logits has it already."""
    kw = _kwargs(t, k, None)
    if before_p is None:
        before_p, _ = _probs(cand, logits, what=what, **kw)
    out, label = _probs(cand, logits, what=what, **_kwargs(t, k, p))
    want = _own_filter(before_p, top_p=p)
    if want is not None and abs(before_p.sum() - 1.0) > 1e-6:
        # the distribution top-p measures does not sum to one (`sum-to-one` reports it): top-p measured on it as
        # it stands is right about top-p
        as_is = _own_filter(before_p, top_p=p, as_is=True)
        if as_is is not None and np.array_equal(out > 0, as_is > 0) and worst_entry(out, as_is, 1e-6, 1e-9) is None:
            return
    if want is not None:
        q = _distribution(before_p)
        on = "the distribution your sampling_probs gives without top_p" + (
            f" (after top_k={k}, renormalised)" if k is not None else "")
        why = (f"the cumulative probabilities of {on}, from the most probable down, are {_cumulative_text(q, p)}; "
               f"keep the smallest set of most probable tokens whose total reaches top_p={fmt(p)}, the token that "
               f"crosses it included{text}")
        _check_kept(out, want, q, label, why)
        check_close(out, want, label, context=OWN_RENORMALISED)
        return
    t = 1.0 if t is None else t
    want = ref.sampling_probs(logits, t, k, p)
    after_k = ref.sampling_probs(logits, t, k)
    why = (f"the cumulative probabilities of the distribution top-p measures are {_cumulative_text(after_k, p)}; "
           f"keep the smallest set of most probable tokens whose total reaches top_p={fmt(p)}, the token that "
           f"crosses it included{text}")
    _check_kept(out, want, _softmax(logits / t), label, why)
    check_close(out, want, label, context=RENORMALISED)


@invariant("top-p", "top_p keeps the smallest most-probable set reaching p (after top-k) and renormalises")
def top_p(cand, ref, rng):
    # The example logits: at T=1, top_p=0.9 keeps exactly 2 of the 8 tokens; the other 6 hold 0.0895 of the mass.
    # Reversed, the two most probable tokens come last in vocabulary order.
    for logits, what in ((EXAMPLE_LOGITS, "the example logits"),
                         (EXAMPLE_LOGITS[::-1].copy(), "the example logits reversed")):
        _top_p_case(cand, ref, logits, what, 1.0, None, 0.9, "")
    # With top_k=3 at T=1.5 the three survivors hold 0.8654 of the mass; renormalised, the first two already
    # reach 0.8, whereas measured on the softmax before top-k it takes all three.
    _top_p_case(cand, ref, EXAMPLE_LOGITS, "the example logits", 1.5, 3, 0.8,
                " (top-p is measured on the distribution top-k leaves, renormalised, not on the softmax before it)")
    # top_p = 1.0 keeps every token (after top_k). Rounding often leaves the running total a hair below 1.0
    # here (the example logits at T=1, 1.3 and 4, [1, 2, 3], 0..7 at T=3): a cut that is looked for only among the
    # sums reaching top_p (np.argmax(cum >= p) gives 0 when none does) then keeps one token. Every probability
    # is 5e-4 or more, so no rounding (not even float32's) can make the total reach 1 before the last token.
    full = [(EXAMPLE_LOGITS, "the example logits", 1.0, None), (EXAMPLE_LOGITS, "the example logits", 1.3, None),
            (EXAMPLE_LOGITS, "the example logits", 4.0, None), (EXAMPLE_LOGITS[::-1].copy(), "the example logits "
            "reversed", 1.0, 5), (np.array([1.0, 2.0, 3.0]), "logits", 1.0, None),
            (np.array([1.0, 2.0, 3.0]), "logits", 2.0, None), (np.arange(8.0), "logits", 3.0, None),
            (np.arange(12.0), "logits", 3.0, 6)]
    full += [(rng.normal(scale=1.0, size=V), "logits", 1.0, None) for V in (6, 11, 25)]
    # Tokens of probability 1e-8 to 1e-9: top_p = 1.0 keeps them too (a cut made at "within 1e-6 of top_p" drops
    # them). float64 only: in float32 the running total before them rounds to 1.0 already.
    if precision.current() == precision.FLOAT64:
        full += [(np.array([10.0, 0.0, -5.0, -8.5]), "logits with a token of probability 9e-9", 1.0, None),
                 (np.array([3.0, 12.0, -6.0, 4.0, -7.0]), "logits with tokens of probability 1e-8", 1.0, None)]
    for logits, what, t, k in full:
        before_p, _ = _probs(cand, logits, what=what, **_kwargs(t, k, None))
        q = _distribution(before_p)
        if q is None or abs(before_p.sum() - 1.0) > 1e-6:
            continue  # no distribution to keep whole: sum-to-one and non-negative report it
        out, label = _probs(cand, logits, what=what, **_kwargs(t, k, 1.0))
        after = " after top_k" if k is not None else ""
        _check_kept(out, q, q, label, f"top_p=1.0 keeps every token{after}: the cumulative probability reaches "
                                      "1 only with the last one (in floating point it may end a hair below 1.0, "
                                      "so the last token must be kept even when no running total reaches top_p)")
        check_close(out, q, label, context=f"top_p=1.0 changes nothing: expected what your sampling_probs gives "
                                           f"without top_p{after}")
    cases = [(5, 1.0, None, 0.3, 0.9), (8, 1.0, None, 0.5, 0.95), (8, 0.7, None, 0.3, 0.8),
             (13, 1.4, None, 0.6, 0.95), (30, 1.0, None, 0.4, 0.9), (6, 1.0, None, 0.01, 0.05),
             (10, 1.0, 4, 0.7, 0.95), (12, 1.2, 6, 0.5, 0.9)]
    for V, t, k, lo, hi in cases:
        logits = rng.normal(scale=1.5, size=V)
        p = _safe_top_p(rng, ref, logits, lo, hi, t, k)
        _top_p_case(cand, ref, logits, "logits", t, k, p, "")

    # The sweep across (0, 1), 0.98 to 0.999 included, on a long tail where every top_p below 1 drops some tokens
    # (a filter skipped near 1 keeps them), at the default temperature and after top_k (top_p = 1 is above).
    for t, k in ((None, None), (0.8, 24)):
        logits = _long_tail(rng, ref, 48, t, k)
        before_p, _ = _probs(cand, logits, **_kwargs(t, k, None))
        first_failing(top_ps()[:-1], lambda rung, logits=logits, t=t, k=k, before_p=before_p: _top_p_case(
            cand, ref, logits, "logits", t, k, rung.value, "", before_p=before_p))
    _exact_thresholds(cand, rng)
    _tied_crossing(cand, ref, rng)


def _tied_crossing(cand, ref, rng):
    """The token that takes the running total past top_p ties with the next one, below the most probable tokens:
    one of the tied tokens stays, or both. A threshold strictly above the first token that is dropped (p > the
    next probability) drops the tie and the crossing with it, and keeps less than top_p."""
    cases = [(np.array([3.0, 1.0, 1.0, 0.0, -1.0]), 0.8)]  # 0.747 before the tie, 0.848 with one of it
    for V, n in ((9, 3), (12, 4)):
        while True:
            logits = np.sort(rng.normal(scale=1.5, size=V))[::-1]
            logits[n] = logits[n - 1]  # the n-th and (n+1)-th most probable tie
            q = ref.sampling_probs(logits)
            cum = np.cumsum(q)
            if cum[n - 1] - cum[n - 2] > 0.02 and q[n + 1] < q[n] * 0.9:
                break
        perm = rng.permutation(V)  # the tied tokens apart in vocabulary order
        cases.append((logits[perm], float((cum[n - 2] + cum[n - 1]) / 2)))
    for logits, p in cases:
        own = attempt(_probs, cand, logits)
        q = None if isinstance(own, Broke) else _distribution(own[0])
        if q is None:
            continue  # no distribution to filter: sum-to-one and non-negative report it
        order = np.sort(q)[::-1]
        n = int(np.searchsorted(np.cumsum(order), p)) + 1  # the smallest prefix reaching p, by the candidate's q
        if n >= len(q) or order[n - 1] != order[n]:
            continue  # the candidate's own distribution does not tie there (another mistake, for other checks)
        out, label = _probs(cand, logits, top_p=p)
        _check_tied_cut(out, q, n, label, f"top_p={fmt(p)}")


def _long_tail(rng, ref, V, t=None, k=None):
    """Logits whose distribution (after t and k) has every cumulative sum far from each top_p of the sweep, and
    leaves tokens out of the smallest set reaching 0.999."""
    t = 1.0 if t is None else t
    while True:
        logits = rng.normal(scale=2.5, size=V)
        cum = np.cumsum(np.sort(ref.sampling_probs(logits, t, k))[::-1])
        gaps = [np.min(np.abs(cum - rung.value)) for rung in top_ps()[:-1]]
        if min(gaps) > 1e-4 and int(np.searchsorted(cum, 0.999)) + 1 < min(V, k or V):
            return logits


def _exact_thresholds(cand, rng):
    """top_p exactly equal to a cumulative sum: the token that reaches top_p is kept (>=, not >).

    Only probabilities 1/m with m a power of two make every running total exact in floating point whatever the
    order of the sums, so the m most probable tokens tie (at logit c, the others 800 or more below: exactly 0).
    The smallest set reaching j/m has j tokens; a solution that keeps every token tied with the one reaching top_p
    keeps all m, which the contract allows too. Where the candidate's own distribution is not exactly 1/m (its
    rounding), one more token is right for it as well.
    """
    for m, t, js in ((4, None, (1, 2, 3)), (2, 0.5, (1,)), (16, 1.0, (1, 5, 8, 13))):
        V = m + 3
        c = float(rng.uniform(-3.0, 3.0))
        logits = np.full(V, c)
        low = rng.choice(V, size=V - m, replace=False)
        logits[low] = c - rng.uniform(800.0, 2000.0, size=V - m)
        kw = {} if t is None else {"temperature": t}
        own = attempt(_probs, cand, logits, **kw)
        q = None if isinstance(own, Broke) else _distribution(own[0])
        if q is None:
            continue  # no distribution to filter: sum-to-one and non-negative report it
        exact = bool(np.all((own[0] == 1.0 / m) | (own[0] == 0.0)))
        top = q >= q.max() * (1 - 1e-9)
        for j in js:
            p = j / m
            out, label = _probs(cand, logits, **kw, top_p=p)
            kept = out > 0
            allowed = {j, m} if exact else {j, j + 1, m}
            cum = ", ".join(fmt(i / m) for i in range(1, min(m, j + 2) + 1))
            why = (f"the {m} most probable tokens have probability 1/{m} each (the others 0), so the running totals "
                   f"are exactly {cum}, ...: the total reaches top_p={fmt(p)} with the {_ordinal(j)} token, which "
                   f"is kept (keep while the total before a token is < top_p: >=, not >), so {_tokens(j)} "
                   f"{'stays' if j == 1 else 'stay'} "
                   f"(or all {m} tied ones)")
            if (kept & ~top).any():
                i = int(np.flatnonzero(kept & ~top)[0])
                raise Fail(f"{label} kept token {i}, whose probability is 0: {why}")
            if int(kept.sum()) not in allowed:
                raise Fail(f"{label} kept {_tokens(int(kept.sum()))} with nonzero probability: {why}")
            check_close(out, np.where(kept, q, 0.0) / q[kept].sum(), label, context=OWN_RENORMALISED)


def _ordinal(n):
    return {1: "first", 2: "second", 3: "third"}.get(n, f"{n}th")


LARGE_V = 65_537  # odd: a normaliser summed in chunks of 4,096 has a partial last chunk


@invariant("matches-reference", "sampling_probs matches a reference to rtol 1e-6 over many settings, defaults left "
                                "out, and for a vocabulary of 65,537")
def matches_reference(cand, ref, rng):
    for V in (1, 2, 3, 8, 17, 50):
        for t in (0.3, 1.0, 1.7):
            k = [None, 1, 3, V, V + 2][int(rng.integers(5))]
            logits = rng.normal(scale=2.0, size=V)
            p = _safe_top_p(rng, ref, logits, 0.2, 0.97, t, k) if rng.random() < 0.6 else None
            # temperature 1.0 is left out: the documented default is judged, not only the value passed
            kw = without_defaults(ref.sampling_probs, _kwargs(t, k, p))
            out, label = _probs(cand, logits, **kw)
            check_close(out, ref.sampling_probs(logits, t, k, p), label)

    # A vocabulary of 65,537 logits near 3,000, off float32's grid: a switch to float32 for big vocabularies loses
    # about 2e-4 of every probability there. Without filters (every default left out), then top_k and top_p.
    def judge(rung):
        logits = beyond_f32(rng, LARGE_V, scale=3.0, offset=3000.0)
        kw = dict(rung.value)
        if "top_p" in kw:
            kw["top_p"] = _safe_top_p(rng, ref, logits, 0.5, 0.9, kw["temperature"], kw["top_k"])
        out, label = _probs(cand, logits, **kw)
        check_close(out, ref.sampling_probs(logits, **kw), label,
                    context="logits near 3,000 off float32's grid",
                    question="is everything computed in float64 at this size?")
    first_failing([Rung(f"V = {LARGE_V:,}", {}), Rung(f"V = {LARGE_V:,} with top_k and top_p",
                                                       {"temperature": 0.8, "top_k": 50, "top_p": None})], judge)
    for logits, t, k in ((EXAMPLE_LOGITS, 1.0, None), (np.arange(12.0), 3.0, None), (np.arange(10.0), 1.0, 4)):
        out, label = _probs(cand, logits, **_kwargs(t, k, 1.0))
        check_close(out, ref.sampling_probs(logits, t, k, 1.0), label, context="top_p=1.0 keeps every token")
    # The order of the steps: top_p=0.9 keeps 1 example token at T=0.5, 2 at T=1 and 5 at T=2 (measured after
    # the temperature), and top_k=3 then top_p=0.8 keeps 2 at T=1.5 (measured after top-k, renormalised).
    for t, k, p in ((0.5, None, 0.9), (2.0, None, 0.9), (2.0, 6, 0.9), (1.5, 3, 0.8)):
        out, label = _probs(cand, EXAMPLE_LOGITS, what="the example logits", **_kwargs(t, k, p))
        check_close(out, ref.sampling_probs(EXAMPLE_LOGITS, t, k, p), label)


@invariant("token-id", "sample returns one token id: a Python or NumPy integer in range(V)")
def token_id(cand, ref, rng):
    for V, kw in ((1, {}), (5, {}), (9, {"temperature": 0.8, "top_k": 4}), (9, {"top_p": 0.7})):
        logits = rng.normal(size=V)
        seed = int(rng.integers(2**31))
        value = cand.sample(logits, rng=rng_spec(seed), **kw)
        _token(value, V, _label("sample", logits, kw) + f" with rng=np.random.default_rng({seed})")
    logits = rng.normal(size=6)
    _token(cand.sample(logits), 6, _label("sample", logits, {}) + " without an rng")
    logits = rng.normal(scale=3.0, size=LARGE_V)
    seed = int(rng.integers(2**31))
    value = cand.sample(logits, rng=rng_spec(seed), top_k=50)
    _token(value, LARGE_V, _label("sample", logits, {"top_k": 50}) + f" with rng=np.random.default_rng({seed})")


def _fresh_draws(cand, n, logits, kw, seed):
    """n draws, each a single call with a generator of its own (seeds seed, seed + 1, ...)."""
    label = _label("sample", logits, kw) + f" with rng=np.random.default_rng(s), s = {seed}, {seed + 1}, ..."
    out = [_token(cand.sample(logits, rng=rng_spec(seed + i), **kw), len(logits), label, loose=True)
           for i in range(n)]
    return np.array(out), label


def _draw_problem(counts, count, probs, label, n_tests, own_probs):
    """Why the token counts of `count` draws do not follow probs, or ''."""
    where = "your sampling_probs gives" if own_probs else "the contract gives"
    for i in np.flatnonzero(probs == 0):
        if counts[i]:
            return (f"{label}: token {i} was drawn {counts[i]} times in {count} draws, but {where} it probability 0 "
                    f"(the filters remove it); draw from sampling_probs(logits, temperature, top_k, top_p)")
    for i in np.flatnonzero(probs > 0):
        lo, hi = _binomial_band(count, probs[i], FALSE_ALARM / n_tests)
        if not lo <= counts[i] <= hi:
            return (f"{label}: token {i} was drawn {counts[i]} times in {count} draws "
                    f"({100 * counts[i] / count:.1f}%), but {where} it probability {fmt(probs[i])} "
                    f"(a correct sampler draws it {lo} to {hi} times); draw from "
                    f"sampling_probs(logits, temperature, top_k, top_p)")
    return ""


@invariant("distribution", "many draws follow sampling_probs; filtered tokens are never drawn")
def distribution(cand, ref, rng):
    # Draws are held to the candidate's own sampling_probs (the statement), so a wrong temperature or filter in
    # sampling_probs is the business of the other invariants. Draws that never move on from one token while the
    # rng passed in is reused are a matter of `reproducible` (the rng must advance): they are then judged one
    # fresh generator per draw instead. A sample that modifies the logits it is given changes them between the
    # repeated calls (`input-unchanged`): it is judged where that changes nothing, at temperature 1.
    n = 1500
    logits_b = rng.normal(scale=1.0, size=9)
    cases = [(EXAMPLE_LOGITS, {"temperature": 1.5, "top_k": 5}),
             (logits_b, {"temperature": 0.8, "top_k": 7,
                         "top_p": _safe_top_p(rng, ref, logits_b, 0.7, 0.9, 0.8, 7)}),
             (rng.normal(scale=0.8, size=6), {})]  # the default temperature, left out
    spare = (EXAMPLE_LOGITS / 1.5, {"temperature": 1.0, "top_k": 5})  # for a sample that changes its logits
    n_tests = sum(len(logits) for logits, _ in cases) + len(spare[0])
    for logits, kw in cases:
        own = attempt(_probs, cand, logits, **kw)
        probs = None if isinstance(own, Broke) else _distribution(own[0])
        own_ok = probs is not None
        if not own_ok:
            probs = ref.sampling_probs(logits, **kw)
        seed = int(rng.integers(2**31 - 2000))
        if kw.get("temperature", 1.0) != 1.0:
            try:
                _, after, _ = cand.call_tracking_args("sample", logits, rng=rng_spec(seed), **kw)
            except CandidateError as err:
                if err.not_implemented:
                    raise
                continue  # a crash is what `token-id` reports
            if not isinstance(after[0], np.ndarray) or not np.array_equal(after[0], logits):
                if spare is not None:
                    cases.append(spare)
                    spare = None
                continue
        drawn = attempt(_draws, cand, n, logits, kw, seed)
        if isinstance(drawn, Broke):
            if drawn.raised:
                continue  # a crash is what `token-id` reports
            raise Fail(drawn.text)
        draws, label = drawn
        count = n
        if (draws == draws[0]).all() and probs.max() < 0.99:
            count = 300
            draws, label = _fresh_draws(cand, count, logits, kw, seed)
        counts = np.bincount(draws, minlength=len(logits))
        # the candidate's own probabilities first; draws that follow the contract's are right too
        problems = [_draw_problem(counts, count, probs, label, n_tests, own_probs=own_ok)]
        want = ref.sampling_probs(logits, **kw)
        if problems[0] and not allclose(want, probs, rtol=1e-9, atol=1e-12):
            problems.append(_draw_problem(counts, count, want, label, n_tests, own_probs=False))
        if all(problems):
            raise Fail(problems[0])


@invariant("reproducible", "draws come only from the rng passed in: same seed, same draws; it advances")
def reproducible(cand, ref, rng):
    n = 40
    for V, kw in ((6, {}), (7, {"temperature": 1.2, "top_k": 6})):
        probs = np.ones(1)
        while probs.max() >= 0.5:  # so 40 correct draws are never all alike, nor alike across seeds
            logits = rng.normal(scale=0.3, size=V)
            probs = ref.sampling_probs(logits, **kw)
        seed = int(rng.integers(2**31 - 1))
        first, label = _draws(cand, n, logits, kw, seed)
        if (first == first[0]).all():
            raise Fail(f"{label}: {n} draws in a row all gave token {first[0]}, whose probability is "
                       f"{fmt(probs[first[0]])}; draw from the rng passed in and let it advance "
                       f"(do not reseed it, copy it or build a new generator inside sample)")
        again, _ = _draws(cand, n, logits, kw, seed)
        if (first != again).any():
            j = int(np.flatnonzero(first != again)[0])
            raise Fail(f"{label}, called {n} times, twice over with the same seed: draw {j} was token "
                       f"{first[j]} the first time and {again[j]} the second; use only the rng passed in "
                       f"for randomness (not np.random.* or a generator of your own)")
        other, _ = _draws(cand, n, logits, kw, seed + 1)
        if (first == other).all():
            raise Fail(f"{label} and the same with np.random.default_rng({seed + 1}) gave the same {n} draws; "
                       f"the draws must come from the rng passed in")
    # Without an rng every call builds a fresh, unseeded default_rng(): the draws still vary.
    label = _label("sample", logits, kw) + " without an rng"
    raw = cand.repeat(n, "sample", logits, **kw)
    if not isinstance(raw, list) or len(raw) != n:
        raise Fail(f"{label} repeated {n} times did not give {n} results")
    alone = np.array([_token(v, len(logits), label, loose=True) for v in raw])
    if (alone == alone[0]).all():
        raise Fail(f"{label}: {n} calls in a row all gave token {alone[0]}, whose probability is "
                   f"{fmt(probs[alone[0]])}; when rng is None use a fresh, unseeded generator, not one with a "
                   f"fixed seed: np.random.default_rng() (no seed), or in PyTorch a torch.Generator() on which you "
                   f"call .seed() (a bare torch.Generator() always starts from the same default seed)")
    # ... and not NumPy's global state (np.random.choice, np.random.random): with it seeded alike before two runs,
    # a fresh default_rng() still draws differently, the global state the same n tokens twice over.
    seed = int(rng.integers(2**31 - 1))
    twice = [cand.repeat_global_seed(seed, n, "sample", logits, **kw) for _ in range(2)]
    if all(isinstance(r, list) and len(r) == n for r in twice):
        first, again = (np.array([_token(v, len(logits), label, loose=True) for v in r]) for r in twice)
        if (first == again).all():
            raise Fail(f"{label}: with np.random.seed({seed}) before each of two runs of {n} calls, both runs drew "
                       f"the same {n} tokens, so the draws come from NumPy's global random state (np.random.choice "
                       "and the like); when rng is None use a fresh np.random.default_rng() (in PyTorch, a fresh "
                       "torch.Generator() seeded with .seed())")
    # ... and not a generator seeded when the file is imported (rng = np.random.default_rng(1234) at the top):
    # imported afresh, it draws the same n tokens again, where a fresh default_rng() per call does not.
    runs = []
    for _ in range(2):
        if not cand.reload():
            return  # the file cannot be imported twice: this part judges nothing
        runs.append(cand.repeat(n, "sample", logits, **kw))
    if all(isinstance(r, list) and len(r) == n for r in runs):
        first, again = (np.array([_token(v, len(logits), label, loose=True) for v in r]) for r in runs)
        if (first == again).all():
            raise Fail(f"{label}: each time the file was imported afresh, {n} calls drew the same {n} tokens, so "
                       "the draws come from a generator seeded when the file is imported (np.random.default_rng("
                       "1234) at its top, say); when rng is None make a fresh np.random.default_rng() in each call "
                       "(in PyTorch, a fresh torch.Generator() seeded with .seed())")


def _readable(x):
    return not isinstance(x, Broke)


def _judge_probs(cand, ref, logits, moderate, kw, name, shift=None, rtol=1e-6, atol=1e-9, twin=False):
    """Fail only on numerical evidence that sampling_probs breaks down on the large `logits`.

    `moderate` has the same shape and the same settings. With shift set, logits = moderate + shift, and
    adding one constant to every logit changes no probability (nor what any filter keeps), so the candidate
    is held to its own output on `moderate`. The reference is the yardstick only for a candidate that matches
    it on `moderate`: any other difference is the business of the other invariants.
    """
    got_mod = attempt(lambda: _probs(cand, moderate, what="logits", **kw)[0])
    if not _readable(got_mod) or not np.isfinite(got_mod).all():
        return  # a crash or a nan at moderate logits is another bug, not overflow
    if twin and not allclose(got_mod, ref.sampling_probs(moderate, **kw), rtol=rtol, atol=atol):
        return  # wrong on the moderate twin already: a setting or a filter, which the other invariants judge
    what = "float32 logits" if logits.dtype == np.float32 else "logits"
    label = f"{_label('sampling_probs', logits, kw, what)} with {name}"
    got = attempt(lambda: _probs(cand, logits, what=what, **kw)[0])
    if isinstance(got, Broke) and got.raised:
        raise Fail(f"{label} raised {got.text}, although the same call on moderate logits works: the size of "
                   "the logits breaks it (subtract the maximum of logits / temperature before np.exp)")
    if not _readable(got):
        return
    if not np.isfinite(got).all():
        i = int(np.flatnonzero(~np.isfinite(got))[0])
        raise Fail(f"{label}: probability {i} is {fmt(got[i])}, although moderate logits with the same settings "
                   "give finite probabilities: exp overflows (inf / inf = nan) or every exp underflows (0/0); "
                   "subtract the maximum of logits / temperature before np.exp")
    if shift is not None and not allclose(got, got_mod, rtol=rtol, atol=atol):
        (i,) = worst_entry(got, got_mod, rtol, atol)
        raise Fail(f"{label}: probability {i} is {fmt(got[i])}, but the same logits lowered by {fmt(shift)} give "
                   f"{fmt(got_mod[i])}; adding a constant to every logit changes no probability, so precision "
                   "is lost at this magnitude (subtract the maximum of logits / temperature, work in float64)")
    want_mod = ref.sampling_probs(moderate.astype(np.float64), **kw)
    if allclose(got_mod, want_mod, rtol=rtol, atol=atol):
        check_close(got, ref.sampling_probs(logits.astype(np.float64), **kw), label, rtol=rtol, atol=atol,
                    context="moderate logits with the same settings come out right, so precision or range is lost "
                            "at this magnitude: subtract the maximum of logits / temperature before np.exp")


def _crowded_top(cand, ref, rng):
    """Most of a 32,769-token vocabulary at or within 1 of a largest logit near 1e4, the rest far below it.

    A shift that only keeps the largest exponent just below overflow (the mean subtracted, then enough to bring
    the top to exp(700), say) overflows the SUM: some 30,000 terms near 1e304 pass float64's 1.8e308. Only the
    maximum keeps every term at most 1, and the sum at most V. The twin keeps the crowd as it stands relative to
    the maximum and puts the far tokens 60 to 70 below it, where they hold no visible mass."""
    V = LARGE_V // 2 + 1
    n_top = int(rng.integers(27_000, 30_001))
    top = float(rng.uniform(9_000.0, 1e4))
    crowd = rng.choice(V, size=n_top, replace=False)
    offsets = np.where(rng.random(n_top) < 0.25, 0.0, -rng.uniform(0.0, 1.0, size=n_top))  # a quarter tie at the top
    logits = rng.uniform(-1e4, -5e3, size=V)
    logits[crowd] = top + offsets
    logits = f32_exact(logits)
    twin = np.full(V, -60.0) - rng.uniform(0.0, 10.0, size=V)
    twin[crowd] = logits[crowd] - logits.max()
    _judge_probs(cand, ref, logits, f32_exact(twin), {"temperature": 1.5},
                 f"{n_top:,} tokens at or within 1 of the largest logit {fmt(logits.max())} and the others between "
                 f"-10,000 and -5,000", twin=True)


def _spiky_settings():
    """Every code path of sampling_probs: defaults left out, a low and a high temperature, each filter, both."""
    return [Rung("every default left out", {}), Rung("temperature 0.7", {"temperature": 0.7}),
            Rung("temperature 0.01", {"temperature": 0.01}), Rung("temperature 1.8", {"temperature": 1.8}),
            Rung("top_k=3", {"top_k": 3}), Rung("top_p=0.9", {"top_p": 0.9}),
            Rung("temperature 0.6, top_k=4, top_p=0.8", {"temperature": 0.6, "top_k": 4, "top_p": 0.8})]


@invariant("stable", "no overflow at logits up to 1e4 with the maximum anywhere, on every code path (defaults, "
                     "temperatures, filters), at temperature 0.01 or in float32")
def stable(cand, ref, rng):
    # The largest logit at a random inner token, two near it and the rest 1,000 to 5,000 below, at +-2,500 to
    # +-5,000: a softmax shifted by anything but the maximum of logits / temperature (the minimum, the first
    # logit, the mean) overflows or underflows to 0/0 on every such vocabulary, whatever the seed.
    # The moderate twin keeps the logits near the largest as they stand relative to it and puts the far ones 40 to
    # 50 below it: every temperature and filter acts on it as on the spiky logits, so a candidate right on the
    # twin and wrong on the spiky ones loses range or precision, not a setting.
    def judge(rung):
        logits = spiky_rows(rng, (9,))
        top = int(np.argmax(logits))
        twin = logits - logits[top]
        twin = np.where(twin < -20.0, -40.0 - rng.uniform(0.0, 10.0, size=9), twin)
        _judge_probs(cand, ref, logits, twin, rung.value,
                     f"the largest logit {fmt(logits[top])} at token {top} and the smallest {fmt(logits.min())}",
                     twin=True)
    first_failing(_spiky_settings(), judge)
    _crowded_top(cand, ref, rng)
    # Up to the documented +-1e4 and no further (to_edge), so that the verdict never rests on values beyond it.
    base = rng.normal(scale=3.0, size=8)
    _judge_probs(cand, ref, base + to_edge(base, 1e4), base, {"temperature": 1.0}, "logits near 1e4",
                 shift=to_edge(base, 1e4))
    base = rng.normal(scale=3.0, size=8)
    _judge_probs(cand, ref, base + to_edge(base, -1e4), base, {"temperature": 0.5, "top_k": 5}, "logits near -1e4",
                 shift=to_edge(base, -1e4))
    # temperature 0.01 multiplies the logits by 100; the moderate problem has logits 100 times smaller
    _judge_probs(cand, ref, rng.normal(scale=2.0, size=8), rng.normal(scale=0.02, size=8), {"temperature": 0.01},
                 "temperature 0.01 (logits / temperature near +-600)")
    base = rng.normal(scale=0.5, size=10)
    _judge_probs(cand, ref, base + to_edge(base, 1e4), base, {"temperature": 0.01, "top_k": 3},
                 "logits near 1e4 at temperature 0.01", shift=to_edge(base, 1e4))
    base = rng.normal(scale=2.0, size=9)
    kw = {"temperature": 1.0, "top_p": _safe_top_p(rng, ref, base, 0.6, 0.9)}
    _judge_probs(cand, ref, base + to_edge(base, 1e4), base, kw, "logits near 1e4 with top_p",
                 shift=to_edge(base, 1e4))
    base32 = rng.normal(scale=10.0, size=7).astype(np.float32)
    _judge_probs(cand, ref, base32 + np.float32(80.0), base32, {"temperature": 1.0},
                 "values near 80 (float32 exp overflows past 88)", shift=80.0, rtol=1e-4, atol=1e-6)
    # sample: the same draw on logits near 1e4 as on the same logits near 0 (nothing but their size differs)
    base = rng.normal(scale=2.0, size=8)
    probs = ref.sampling_probs(base, 0.01)
    seed = int(rng.integers(2**31))

    def draw(logits):
        label = _label("sample", logits, {"temperature": 0.01}) + f" with rng=np.random.default_rng({seed})"
        return _token(cand.sample(logits, temperature=0.01, rng=rng_spec(seed)), len(logits), label), label

    moderate = attempt(draw, base)
    if not _readable(moderate) or probs[moderate[0]] == 0:
        return  # no token id, or a token of probability 0 at moderate logits: another bug
    logits = base + to_edge(base, 1e4)
    got = attempt(draw, logits)
    label = _label("sample", logits, {"temperature": 0.01}) + f" with rng=np.random.default_rng({seed})"
    if isinstance(got, Broke) and got.raised:
        raise Fail(f"{label} raised {got.text}, although the same logits lowered by about 1e4 work: the size of the "
                   "logits breaks it (subtract the maximum of logits / temperature before np.exp)")
    if _readable(got) and probs[got[0]] == 0:
        raise Fail(f"{label} drew token {got[0]}, whose probability is 0 ({fmt(logits[got[0]])} is far below the "
                   f"largest logit {fmt(logits.max())} at temperature 0.01), although the same logits lowered by about "
                   "1e4 give a possible token: subtract the maximum of logits / temperature before np.exp")


# Every bad value is tried on every code path: greedy (temperature 0) and sampled, with and without the other
# filter, for both functions; a check placed after the greedy early return, or inside one filter's branch, lets
# the bad value through on some paths only.
BAD_VALUES = {"temperature": (-0.5, -1e-3), "top_k": (0, -2), "top_p": (0.0, -0.1, 1.5, 1.0001)}
GOOD_VALUES = {"temperature": (0.0, 0.8), "top_k": 3, "top_p": 0.9}


def _bad_calls():
    """(the bad argument, the path it is tried on, all the keyword arguments): every bad value on every path."""
    for name, values in BAD_VALUES.items():
        others = [k for k in ("top_k", "top_p") if k != name]
        temps = [None] if name == "temperature" else GOOD_VALUES["temperature"]
        for value, t in itertools.product(values, temps):
            for n in range(len(others) + 1):
                for with_filters in itertools.combinations(others, n):
                    path = {} if t is None else {"temperature": t}
                    path.update({k: GOOD_VALUES[k] for k in with_filters})
                    yield {name: value}, path, {**path, name: value}


def _path_text(bad, path, fn):
    """Where the bad value was tried: 'at temperature=0 (greedy), top_p=0.9, top_k=0 in sampling_probs'."""
    (name, value), = bad.items()
    where = ", ".join(f"{k}={fmt(v)}" + (" (greedy)" if k == "temperature" and v == 0 else "") for k, v in path.items())
    return (f"at {where}, " if where else "with nothing else given, ") + f"{name}={fmt(value)} in {fn}"


@invariant("bad-input", "ValueError for temperature < 0, top_k < 1 and top_p outside (0, 1], on every code path: "
                        "greedy or sampled, with or without the other filter, in both functions")
def bad_input(cand, ref, rng):
    logits = rng.normal(size=6)
    for fn in ("sampling_probs", "sample"):
        for bad, path, kw in _bad_calls():
            full = {**kw, "rng": rng_spec(0)} if fn == "sample" else kw
            try:
                expect_raises(cand, "ValueError", fn, logits, what=_label(fn, logits, full), **full)
            except Fail as exc:
                verdict = "was accepted" if "returned normally" in str(exc) else "was not rejected with ValueError"
                raise Fail(f"{_path_text(bad, path, fn)} {verdict}: {exc}. The contract rejects it whatever the "
                           "other arguments: validate every argument first, before the greedy early return and "
                           "outside the filters' branches") from None
    # The edges of the valid ranges must still work.
    for kw in ({"top_p": 1.0}, {"top_k": 1}, {"top_k": 50}, {"temperature": 0.0}, {"temperature": 0.0, "top_k": 1},
               {"temperature": 0.0, "top_p": 1.0}):
        _probs(cand, logits, **kw)


@invariant("input-unchanged", "the caller's logits are not modified, on every code path of both functions")
def input_unchanged(cand, ref, rng):
    # A copy made on some paths only (temperature 1, no filter, greedy) leaves the others in place. A copy skipped
    # for big vocabularies is caught in matches-reference's call at V = 65,537: every call compares its arguments.
    paths = [("sampling_probs", {}), ("sampling_probs", {"temperature": 1.0}), ("sampling_probs", {"temperature": 0.0}),
             ("sampling_probs", {"temperature": 0.01}), ("sampling_probs", {"temperature": 1.7, "top_k": 5}),
             ("sampling_probs", {"top_p": 0.8}), ("sampling_probs", {"temperature": 0.7, "top_k": 5, "top_p": 0.8}),
             ("sample", {"rng": rng_spec(3)}), ("sample", {"temperature": 0.0, "rng": rng_spec(4)}),
             ("sample", {"temperature": 1.3, "top_k": 4, "top_p": 0.9, "rng": rng_spec(5)})]

    # Every call compares its arguments before and after (the engine), and a change names the call and the check.
    def judge(rung):
        fn, kw, logits = rung.value
        for _ in range(2 if logits.size < 1_000 else 1):  # twice: a change may come on a later call only
            attempt(cand.call, fn, logits, **kw)
    rungs = [Rung(_label(fn, np.empty(9), kw), (fn, kw, rng.normal(scale=3.0, size=9))) for fn, kw in paths]
    # float32 logits too: a copy skipped when the dtype is already the one computed in (an astype that would copy
    # float64 logits, left out for float32 ones) divides the caller's array by the temperature in place.
    rungs += [Rung(_label(fn, np.empty(9, dtype=np.float32), kw, "float32 logits"),
                   (fn, kw, rng.normal(scale=3.0, size=9).astype(np.float32)))
              for fn, kw in paths if kw.get("temperature", 1.0) not in (0.0, 1.0) or "top_k" in kw or "top_p" in kw]
    first_failing(rungs, judge)


# -- known mistakes --------------------------------------------------------------
# Every probe keeps its cumulative sums (for the reference and for each variant) more than KNIFE_EDGE from top_p,
# and no two kept probabilities tie, so a different but correct order of operations gives the same tokens.

def probes(rng):
    reversed_logits = EXAMPLE_LOGITS[::-1].copy()
    near_1e4 = 1e4 + EXAMPLE_LOGITS[[3, 0, 6, 1, 5, 2, 7, 4]]
    tied = np.array([1.0, 3.0, -0.5, 3.0, 2.0, -2.0])  # the first of two largest logits wins at temperature 0
    for logits, kw in (
        (EXAMPLE_LOGITS, {"temperature": 1.0, "top_p": 0.9}),  # keeps 2 tokens: cumulative 0.7155, 0.9105
        (reversed_logits, {"temperature": 1.0, "top_p": 0.9}),  # the same, most probable last in the vocabulary
        (EXAMPLE_LOGITS, {"temperature": 1.5, "top_k": 3, "top_p": 0.8}),  # top-p on the top-k distribution
        (reversed_logits, {"temperature": 1.0, "top_k": 2, "top_p": 0.77}),
        (EXAMPLE_LOGITS, {"temperature": 0.5}),
        (EXAMPLE_LOGITS, {"temperature": 0.5, "top_p": 0.9}),  # 1 token at T = 0.5 (0.9264), 2 at T = 1 (0.9105)
        (reversed_logits, {"temperature": 1.7, "top_p": 0.6}),
        (EXAMPLE_LOGITS, {"temperature": 0.7, "top_k": 3}),
        (reversed_logits, {"temperature": 1.3, "top_k": 5}),
        (tied, {"temperature": 0.0}),
        (EXAMPLE_LOGITS, {"temperature": 0, "top_k": 3, "top_p": 0.5}),
        (near_1e4, {"temperature": 1.0}),
        (near_1e4, {"temperature": 0.8, "top_k": 5}),
        (EXAMPLE_LOGITS, {"temperature": -0.5}),
        (reversed_logits, {"temperature": 1.0, "top_p": 1.5}),
        (EXAMPLE_LOGITS, {"temperature": 0, "top_k": 0}),  # bad filters at temperature 0: still a ValueError
        (reversed_logits, {"temperature": 0, "top_p": 1.5}),
        (np.array([10.0, 0.0, -4.5]), {"temperature": 1.0, "top_p": 1.0}),  # keeps its token of probability 5e-7
        (np.array([3, 1, 4, 0, 2]), {"temperature": 0.8}),  # integer logits
        (EXAMPLE_LOGITS, {}),  # the default temperature
        (np.array([1.0, 1.01, 0.99, 0.5]), {"temperature": 0.01}),  # sharp, but not greedy
        (EXAMPLE_LOGITS, {"temperature": 1.0, "top_k": len(EXAMPLE_LOGITS)}),  # top_k = V keeps every token
        (EXAMPLE_LOGITS, {"temperature": 1.0, "top_p": 0.993}),  # keeps 6 tokens: cumulative 0.9897, 0.9977
        (np.array([-800.0, 0.0, 5.0]), {"temperature": 1.0}),  # spans more than exp can take, max small
        (np.array([5.0, 3.0, 1.0, 3.0]), {"temperature": 1.0, "top_k": 2}),  # a tie at the k-th place
        # the running total of the sorted probabilities ends at 0.9999999999999999, just below top_p = 1.0
        (np.array([0.0, 0.3, -0.27, -0.89, -0.45]), {"temperature": 1.0, "top_p": 1.0}),
        # probabilities exactly 1/8, 1/2, 1/4, 1/8 (exp(-log 2) is exactly 0.5): the most probable token alone
        # reaches top_p = 0.5 exactly, without a tie anywhere near the cut
        (np.array([-np.log(4.0), 0.0, -np.log(2.0), -np.log(4.0)]), {"temperature": 1.0, "top_p": 0.5}),
        # logits near 3,000 (not on float32's grid) in a vocabulary of more than 32,768 tokens, 9 of them 20 above
        # the rest so that they hold most of the mass
        (_large_vocab_logits(), {"temperature": 1.0}),
    ):
        yield "sampling_probs", (logits.copy(),), kw
    # sample: fixed seeds, each chosen so that the mistakes below draw another token than the rng passed in does.
    flat = np.zeros(1_000)
    yield "sample", (flat,), {"rng": rng_spec(5)}  # seed 0 draws token 636, seed 5 token 805
    yield "sample", (flat,), {"rng": rng_spec(6)}
    yield "sample", (flat,), {}  # no rng: a fresh, unseeded generator (seed 42 would always draw the same token)
    yield "sample", (np.linspace(0.0, 3.0, 12),), {"rng": rng_spec(11)}  # token 5; position 0 of the sorted probs
    yield "sample", (np.linspace(0.0, 1.0, 40),), {"top_k": 1, "rng": rng_spec(3)}  # token 39; 5 without top_k


def _large_vocab_logits():
    V = LARGE_V // 2 + 1
    logits = 2980.0 + np.linspace(0.0, 1.0, V) + np.pi * 1e-5
    logits[::V // 8] += 20.0 + np.linspace(0.0, 2.0, 9) + 1e-4 * np.sqrt(np.arange(2.0, 11.0))  # off the grid
    return logits


def _variant(logits, temperature=1.0, top_k=None, top_p=None, *, validate=("temperature", "top_k", "top_p"),
             zero="greedy", on_probs=None, subtract_max=True, in_place=False, k_extra=0, k_lowest=False,
             p_vocab_order=False, p_crossing=True, p_renormalise=True, p_before_k=False, k_renormalise=True,
             k_renormalise_in_p=False, p_cut="searchsorted", greedy_first=False):
    """sampling_probs with one known mistake switched on.

    zero: "greedy" (right), "greedy-last" (the last of tied maxima), "divide" (by 0: nan) or "epsilon"
    (max(T, 1e-8): ties split the mass);
    on_probs: None (right: T divides the logits), "divide" (p / T renormalised) or "times" (softmax * T);
    p_cut: "searchsorted" (right), "argmax" (np.argmax(cum >= top_p): 0 when no total reaches top_p),
    "strict" (a token dropped only when the total before it EXCEEDS top_p) or "tolerance" (a token kept only
    while the total before it is below top_p - 1e-6);
    greedy_first: the one-hot of temperature 0 is returned before top_k and top_p are validated.
    """
    if greedy_first and temperature == 0 and zero in ("greedy", "greedy-last"):
        validate = tuple(v for v in validate if v == "temperature")
    if "temperature" in validate and temperature < 0:
        raise ValueError(f"temperature must be >= 0, got {temperature}")
    if "top_k" in validate and top_k is not None and top_k < 1:
        raise ValueError(f"top_k must be >= 1, got {top_k}")
    if "top_p" in validate and top_p is not None and not 0 < top_p <= 1:
        raise ValueError(f"top_p must be in (0, 1], got {top_p}")
    if in_place:
        logits = np.asarray(logits)
    else:
        logits = np.asarray(logits, dtype=np.float64)
    V = logits.shape[0]
    if temperature == 0 and zero in ("greedy", "greedy-last"):
        probs = np.zeros(V)
        probs[np.argmax(logits) if zero == "greedy" else V - 1 - np.argmax(logits[::-1])] = 1.0
        return probs
    if on_probs is None:
        if in_place:
            logits /= temperature
            z = logits
        else:
            z = logits / (max(temperature, 1e-8) if zero == "epsilon" else temperature)
    else:
        z = logits
    probs = np.exp(z - z.max() if subtract_max else z)
    probs = probs / probs.sum()
    if on_probs == "divide":
        probs = probs / temperature
        probs = probs / probs.sum()
    elif on_probs == "times":
        probs = probs * temperature
    before_k = probs.copy()
    # Without validation, `if top_k:` skips top_k=0 as the learner's truthiness test does.
    if top_k is not None and (top_k or "top_k" in validate) and top_k + k_extra < V:
        order = np.argsort(probs if k_lowest else -probs, kind="stable")
        probs[order[top_k + k_extra:]] = 0.0
        if k_renormalise:
            probs = probs / probs.sum()
    if top_p is not None:
        if k_renormalise_in_p:
            probs = probs / probs.sum()
        measured = before_k if p_before_k else probs
        order = np.arange(V) if p_vocab_order else np.argsort(-measured, kind="stable")
        cum = np.cumsum(measured[order])
        if p_cut == "argmax":
            n_keep = int(np.argmax(cum >= top_p)) + 1
        elif p_cut == "strict":
            n_keep = 1 + int(np.count_nonzero(cum[:-1] <= top_p))
        elif p_cut == "tolerance":
            n_keep = 1 + int(np.count_nonzero(cum[:-1] < top_p - 1e-6))
        else:
            n_keep = int(np.searchsorted(cum, top_p, side="left")) + (1 if p_crossing else 0)
        probs[order[max(n_keep, 1):]] = 0.0
        if p_renormalise:
            probs = probs / probs.sum()
    return probs


@mistake("temperature-after-softmax", "divide the logits by the temperature before the softmax: scaling the "
                                      "probabilities by 1/T and renormalising cancels out", fn="sampling_probs")
def _temperature_on_probs(logits, temperature=1.0, top_k=None, top_p=None):
    return _variant(logits, temperature, top_k, top_p, on_probs="divide")


@mistake("temperature-after-softmax", "divide the logits by the temperature before the softmax, instead of "
                                      "multiplying the probabilities by it", fn="sampling_probs")
def _softmax_times_temperature(logits, temperature=1.0, top_k=None, top_p=None):
    return _variant(logits, temperature, top_k, top_p, on_probs="times")


@mistake("zero-temperature-divides", "handle temperature 0 on its own, as a one-hot at np.argmax(logits): "
                                     "dividing the logits by 0 gives inf - inf = nan", fn="sampling_probs")
def _zero_temperature_divides(logits, temperature=1.0, top_k=None, top_p=None):
    return _variant(logits, temperature, top_k, top_p, zero="divide")


@mistake("zero-temperature-epsilon", "handle temperature 0 on its own, as a one-hot at the first argmax: a tiny "
                                     "epsilon instead of 0 splits the mass between tied logits", fn="sampling_probs")
def _zero_temperature_epsilon(logits, temperature=1.0, top_k=None, top_p=None):
    return _variant(logits, temperature, top_k, top_p, zero="epsilon")


@mistake("top-k-off-by-one", "keep exactly top_k tokens: the k most probable (indices order[:k] of the "
                             "descending order), not k + 1", fn="sampling_probs")
def _top_k_plus_one(logits, temperature=1.0, top_k=None, top_p=None):
    return _variant(logits, temperature, top_k, top_p, k_extra=1)


@mistake("top-k-not-renormalised", "after top-k zeroes the tail, divide by the sum of what is left, before top-p "
                                   "and even without it", fn="sampling_probs")
def _top_k_not_renormalised(logits, temperature=1.0, top_k=None, top_p=None):
    return _variant(logits, temperature, top_k, top_p, k_renormalise=False)


# The same mistake where only the top-p branch renormalises: right with top_p, short of one without.
@mistake("top-k-not-renormalised", "after top-k zeroes the tail, divide by the sum of what is left, even when no "
                                   "top_p follows", fn="sampling_probs")
def _top_k_renormalised_only_by_top_p(logits, temperature=1.0, top_k=None, top_p=None):
    return _variant(logits, temperature, top_k, top_p, k_renormalise=False, k_renormalise_in_p=True)


@mistake("greedy-last-tie", "temperature 0 is a one-hot at np.argmax(logits), the FIRST of tied maxima; a "
                            "reversed ascending sort puts the last one first", fn="sampling_probs")
def _greedy_last_tie(logits, temperature=1.0, top_k=None, top_p=None):
    return _variant(logits, temperature, top_k, top_p, zero="greedy-last")


@mistake("top-k-keeps-lowest", "top-k keeps the k MOST probable tokens: sort in descending order (np.argsort of "
                               "-probs), not ascending", fn="sampling_probs")
def _top_k_lowest(logits, temperature=1.0, top_k=None, top_p=None):
    return _variant(logits, temperature, top_k, top_p, k_lowest=True)


@mistake("top-p-drops-crossing-token", "keep the token at which the running total first reaches top_p too: the "
                                       "kept set is the smallest whose mass is >= top_p", fn="sampling_probs")
def _top_p_drops_crossing(logits, temperature=1.0, top_k=None, top_p=None):
    return _variant(logits, temperature, top_k, top_p, p_crossing=False)


@mistake("top-p-vocabulary-order", "accumulate the probabilities from the most probable token down (sorted "
                                   "descending), not in vocabulary order", fn="sampling_probs")
def _top_p_vocabulary_order(logits, temperature=1.0, top_k=None, top_p=None):
    return _variant(logits, temperature, top_k, top_p, p_vocab_order=True)


@mistake("top-p-not-renormalised", "after top-p zeroes the tail, divide by the sum of what is left so the "
                                   "probabilities sum to one", fn="sampling_probs")
def _top_p_not_renormalised(logits, temperature=1.0, top_k=None, top_p=None):
    return _variant(logits, temperature, top_k, top_p, p_renormalise=False)


@mistake("top-p-before-top-k", "apply top-p to the renormalised distribution that top-k leaves, not to the "
                               "softmax before top-k", fn="sampling_probs")
def _top_p_before_top_k(logits, temperature=1.0, top_k=None, top_p=None):
    return _variant(logits, temperature, top_k, top_p, p_before_k=True)


@mistake("no-max-subtraction", "subtract the maximum of logits / temperature before np.exp: exp(1e4) overflows "
                               "to inf and inf / inf is nan", fn="sampling_probs")
def _no_max_subtraction(logits, temperature=1.0, top_k=None, top_p=None):
    return _variant(logits, temperature, top_k, top_p, subtract_max=False)


@mistake("greedy-skips-validation", "validate top_k and top_p before the temperature-0 shortcut: the ValueError for "
                                    "a bad filter holds at every temperature, greedy included", fn="sampling_probs")
def _greedy_skips_validation(logits, temperature=1.0, top_k=None, top_p=None):
    return _variant(logits, temperature, top_k, top_p, greedy_first=True)


@mistake("top-p-tolerance", "compare the running total with top_p itself, not with top_p minus a tolerance: at "
                            "top_p = 1 every token must stay, however improbable", fn="sampling_probs")
def _top_p_tolerance(logits, temperature=1.0, top_k=None, top_p=None):
    return _variant(logits, temperature, top_k, top_p, p_cut="tolerance")


# The same mistake with one, two or all checks missing: each variant tells only on its own bad argument.
@mistake("no-validation", "raise ValueError for temperature < 0, top_k < 1 and top_p outside (0, 1] before "
                          "computing anything", fn="sampling_probs")
def _no_validation(logits, temperature=1.0, top_k=None, top_p=None):
    return _variant(logits, temperature, top_k, top_p, validate=())


@mistake("no-validation", "raise ValueError for a negative temperature (and top_k < 1, top_p outside (0, 1]) "
                          "before computing anything", fn="sampling_probs")
def _no_temperature_validation(logits, temperature=1.0, top_k=None, top_p=None):
    return _variant(logits, temperature, top_k, top_p, validate=("top_k", "top_p"))


@mistake("no-validation", "raise ValueError for top_p outside (0, 1] (and temperature < 0, top_k < 1) before "
                          "computing anything", fn="sampling_probs")
def _no_top_p_validation(logits, temperature=1.0, top_k=None, top_p=None):
    return _variant(logits, temperature, top_k, top_p, validate=("temperature", "top_k"))


@mistake("in-place-temperature", "divide a copy (z = logits / temperature), not the caller's array in place "
                                 "with /=, which also fails for integer logits", fn="sampling_probs")
def _in_place_temperature(logits, temperature=1.0, top_k=None, top_p=None):
    return _variant(logits, temperature, top_k, top_p, in_place=True)


@mistake("default-temperature", "the default temperature is 1.0: a call that leaves it out gets the plain softmax",
         fn="sampling_probs")
def _default_temperature(logits, temperature=0.7, top_k=None, top_p=None):
    return _variant(logits, temperature, top_k, top_p)


@mistake("small-temperature-greedy", "only temperature 0 is greedy: any positive temperature, however small, "
                                     "divides the logits (after subtracting the max)", fn="sampling_probs")
def _small_temperature_greedy(logits, temperature=1.0, top_k=None, top_p=None):
    return _variant(logits, 0.0 if 0 <= temperature < 0.05 else temperature, top_k, top_p)


@mistake("top-k-at-vocabulary-size", "top_k >= V keeps every token: skip the cut there (np.argpartition's kth "
                                     "must be below V)", fn="sampling_probs")
def _top_k_at_v(logits, temperature=1.0, top_k=None, top_p=None):
    if top_k is not None and top_k >= len(logits) and temperature != 0:
        raise ValueError(f"kth(={top_k}) out of bounds ({len(logits)})")
    return _variant(logits, temperature, top_k, top_p)


@mistake("top-p-skipped-near-one", "apply the nucleus cut for every top_p below 1: at 0.99 it still drops the "
                                   "tail that holds the last 1% of the mass", fn="sampling_probs")
def _top_p_skipped_near_one(logits, temperature=1.0, top_k=None, top_p=None):
    return _variant(logits, temperature, top_k, None if top_p is not None and 0.99 <= top_p <= 1 else top_p)


@mistake("in-place-temperature", "shift a copy by the maximum: at temperature 1, z = logits is the caller's array, "
                                 "and z -= z.max() rewrites it", fn="sampling_probs")
def _in_place_at_one(logits, temperature=1.0, top_k=None, top_p=None):
    out = _variant(logits, temperature, top_k, top_p)
    if temperature == 1 and isinstance(logits, np.ndarray) and logits.dtype == np.float64:
        logits -= logits.max()
    return out


@mistake("subtract-min", "subtract the MAXIMUM of logits / temperature before np.exp, not the minimum: "
                         "exp(max - min) overflows once the logits span about 709", fn="sampling_probs")
def _subtract_min(logits, temperature=1.0, top_k=None, top_p=None):
    shifted = np.asarray(logits, dtype=np.float64)
    return _variant(shifted - shifted.min(), temperature, top_k, top_p, subtract_max=False)


@mistake("top-k-strict-threshold", "keep exactly top_k tokens by their sorted positions (order[:top_k]): "
                                   "p > the (k+1)-th value drops both tokens of a tie at the k-th place",
         fn="sampling_probs")
def _top_k_strict(logits, temperature=1.0, top_k=None, top_p=None):
    if temperature == 0 or top_k is None or top_k >= len(logits):
        return _variant(logits, temperature, top_k, top_p)
    p = _variant(logits, temperature)
    p[p <= np.sort(p)[::-1][top_k]] = 0.0
    p = p / p.sum()
    return _variant(np.log(np.maximum(p, 1e-300)) if p.any() else p, 1.0, None, top_p)



@mistake("top-p-argmax-cut", "find the cut with np.searchsorted(cum, top_p) + 1, capped at V: np.argmax(cum >= "
                             "top_p) is 0 when rounding leaves every total just below top_p = 1.0",
         fn="sampling_probs")
def _top_p_argmax(logits, temperature=1.0, top_k=None, top_p=None):
    return _variant(logits, temperature, top_k, top_p, p_cut="argmax")


@mistake("top-p-strict-greater", "drop a token once the total BEFORE it reaches top_p (>=, not >): a total that "
                                 "lands exactly on top_p already has the nucleus", fn="sampling_probs")
def _top_p_strict(logits, temperature=1.0, top_k=None, top_p=None):
    return _variant(logits, temperature, top_k, top_p, p_cut="strict")


@mistake("top-p-before-temperature", "apply the temperature first and measure top-k and top-p on softmax(logits / "
                                     "T): a nucleus chosen at temperature 1 keeps the wrong tokens",
         fn="sampling_probs")
def _top_p_before_temperature(logits, temperature=1.0, top_k=None, top_p=None):
    if temperature == 0 or (top_k is None and top_p is None):
        return _variant(logits, temperature, top_k, top_p)
    kept = _variant(logits, 1.0, top_k, top_p) > 0
    z = np.where(kept, np.asarray(logits, dtype=np.float64) / temperature, -np.inf)
    e = np.exp(z - z.max())
    return e / e.sum()


def _float32(logits):
    return np.asarray(logits, dtype=np.float64).astype(np.float32).astype(np.float64)


@mistake("float32-logits", "keep the logits in float64 for every vocabulary size: a float64 result computed from "
                           "logits rounded to float32 is off by about 1e-4 near 3,000", fn="sampling_probs")
def _float32_large_vocab(logits, temperature=1.0, top_k=None, top_p=None):
    # Judged on the probe of more than 32,768 tokens alone, so solutions that cast only large vocabularies count.
    # A solution that returns float32 is judged at float32 precision, against a reference on float32-rounded
    # logits, which this variant then equals: only a float64 result computed from float32 logits is named.
    return _variant(_float32(logits) if len(logits) > LARGE_V // 2 else logits, temperature, top_k, top_p)


def _draw(probs, rng):
    return int(rng.choice(len(probs), p=probs))


@mistake("sample-ignores-rng", "draw with the rng passed in: a generator seeded inside sample gives every caller the "
                               "same draws whatever seed they pass", fn="sample")
def _sample_own_seed(logits, temperature=1.0, top_k=None, top_p=None, rng=None):
    return _draw(_variant(logits, temperature, top_k, top_p), np.random.default_rng(0))


@mistake("sample-ignores-rng", "draw with the rng passed in, rng.choice(V, p=probs): np.random.choice or a "
                               "generator of the module's own gives draws the caller's seed cannot replay",
         fn="sample")
def _sample_fresh_randomness(logits, temperature=1.0, top_k=None, top_p=None, rng=None):
    return _draw(_variant(logits, temperature, top_k, top_p), np.random.default_rng())


@mistake("sample-fixed-seed-when-none", "without an rng, draw from a fresh np.random.default_rng() (unseeded; in "
                                        "PyTorch a torch.Generator() seeded with .seed()): a fixed seed makes every "
                                        "such call draw the same token", fn="sample")
def _sample_fixed_seed_when_none(logits, temperature=1.0, top_k=None, top_p=None, rng=None):
    return _draw(_variant(logits, temperature, top_k, top_p), np.random.default_rng(42) if rng is None else rng)


@mistake("sample-ignores-filters", "pass top_k and top_p on to sampling_probs: sample must draw from the filtered "
                                   "distribution", fn="sample")
def _sample_ignores_filters(logits, temperature=1.0, top_k=None, top_p=None, rng=None):
    return _draw(_variant(logits, temperature), rng if rng is not None else np.random.default_rng())


@mistake("sample-returns-array", "return one token id as an int: rng.choice(V, p=p) without size=, then int(...)",
         fn="sample")
def _sample_returns_array(logits, temperature=1.0, top_k=None, top_p=None, rng=None):
    rng = rng if rng is not None else np.random.default_rng()
    probs = _variant(logits, temperature, top_k, top_p)
    return rng.choice(len(probs), size=1, p=probs)


@mistake("sample-sorted-position", "draw the token id itself, rng.choice(V, p=probs) with the probabilities in "
                                   "vocabulary order: a position in the sorted probabilities is not a token id",
         fn="sample")
def _sample_sorted_position(logits, temperature=1.0, top_k=None, top_p=None, rng=None):
    rng = rng if rng is not None else np.random.default_rng()
    return _draw(np.sort(_variant(logits, temperature, top_k, top_p))[::-1], rng)
