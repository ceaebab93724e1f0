"""Hidden checks for the `swiglu` exercise: (silu(x W_gate) * (x W_up)) W_down."""

import math

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
    fmt,
    invariant,
    mistake,
    shape_of,
    worst_entry,
)
from attnprep.ladders import Rung, beyond_f32, dims, first_failing

FUNCTIONS = ("swiglu",)

# (shape of x, d_ff): d_ff != d_model everywhere, so a misplaced transpose cannot pass by accident.
CASES = [((6,), 10), ((5, 6), 10), ((1, 6), 4), ((2, 3, 6), 4), ((3, 4, 8), 12), ((2, 1, 3, 5), 7)]


# -- helpers ----------------------------------------------------------------------

def _weights(rng, d_model, d_ff):
    return (rng.normal(size=(d_model, d_ff)) / math.sqrt(d_model),
            rng.normal(size=(d_model, d_ff)) / math.sqrt(d_model),
            rng.normal(size=(d_ff, d_model)) / math.sqrt(d_ff))


def _label(x, W_gate, W_down, what="x"):
    return (f"swiglu({what}, W_gate, W_up, W_down) with {what} of shape {shape_of(x)}, W_gate and W_up of shape "
            f"{shape_of(W_gate)}, W_down of shape {shape_of(W_down)}")


def _call(cand, x, W_gate, W_up, W_down, what="x"):
    """Run the candidate; return its output (shape already checked) and a label."""
    label = _label(x, W_gate, W_down, what)
    try:
        value = cand.swiglu(x, W_gate, W_up, W_down)
    except CandidateError as err:
        if not err.is_a("ValueError") or err.not_implemented:
            raise
        line = f" (line {err.line})" if err.line else ""
        text = err.text.lower()
        if "subscripts" in text or "einstein" in text or ("operand" in text and "mismatch" not in text):
            advice = "x may have any number of leading dimensions, (..., d_model); `...` in einsum or `@` handles them"
        elif "mismatch" in text or "aligned" in text or "shapes" in text:
            advice = ("W_gate and W_up are (d_model, d_ff) and W_down is (d_ff, d_model), so the products are "
                      "x @ W_gate, x @ W_up and hidden @ W_down, without transposes")
        else:
            advice = ""
        raise Fail(f"{label} raised ValueError: {err.text}{line}" + (f". {advice}" if advice else "")) from None
    out = as_float(value, label)
    want_shape = np.shape(x)
    if out.shape == want_shape[:-1] + (W_gate.shape[1],) and out.shape != want_shape:
        raise Fail(f"{label} has shape {shape_of(out)}, expected {shape_of(x)}: that is the hidden width d_ff; "
                   "the down projection @ W_down brings it back to d_model")
    check_shape(out, want_shape, label)
    return out, label


def _probe(a):
    """x and weights such that swiglu(x)[..., j] = silu(a[..., j]) for j < d_ff, and 0 after.

    d_ff = a.shape[-1], d_model = d_ff + 2: x[..., :] = [a, 1, 0], W_gate copies a, W_up sums the constant 1
    into every hidden unit, and W_down copies the hidden units back to the first d_ff features.
    """
    d_ff = a.shape[-1]
    d_model = d_ff + 2
    x = np.zeros(a.shape[:-1] + (d_model,))
    x[..., :d_ff] = a
    x[..., d_ff] = 1.0
    W_gate = np.zeros((d_model, d_ff))
    W_gate[:d_ff] = np.eye(d_ff)
    W_up = np.zeros((d_model, d_ff))
    W_up[d_ff] = 1.0
    W_down = np.zeros((d_ff, d_model))
    W_down[:, :d_ff] = np.eye(d_ff)
    return x, W_gate, W_up, W_down


def _stable_sigmoid(a):
    e = np.exp(-np.abs(a))
    return np.where(a >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def _gelu_erf(a):
    return np.array([v * 0.5 * (1.0 + math.erf(v / math.sqrt(2.0))) for v in np.ravel(a)]).reshape(np.shape(a))


# What a learner's gate may be instead of silu(a), with x @ W_up = 1 in the probe.
ALTERNATIVES = {
    "sigmoid(a), a plain sigmoid gate (that is GLU, not SwiGLU)": _stable_sigmoid,
    "relu(a) (that is ReGLU)": lambda a: np.maximum(a, 0.0),
    "gelu(a) in its exact erf form (that is GeGLU)": _gelu_erf,
    "gelu(a) in its tanh approximation (that is GeGLU)":
        lambda a: 0.5 * a * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (a + 0.044715 * a**3))),
    "a * sigmoid(1.702 * a), the sigmoid approximation of gelu": lambda a: a * _stable_sigmoid(1.702 * a),
    "a * sigmoid(-a) = a / (1 + exp(a)), the sign inside exp flipped": lambda a: a * _stable_sigmoid(-a),
    "tanh(a)": np.tanh,
    "no activation at all, (x @ W_gate) * (x @ W_up)": lambda a: a,
    "silu on the wrong branch, (x @ W_gate) * silu(x @ W_up)": lambda a: a * (1.0 / (1.0 + math.exp(-1.0))),
    "silu(a) + 1, the branches added instead of multiplied": lambda a: a * _stable_sigmoid(a) + 1.0,
}


def _silu(a):
    return a * _stable_sigmoid(a)


# The same for the second probe, where x @ W_gate = a is reached as (a / s) @ diag(s) and x @ W_up = u.
BRANCH_ALTERNATIVES = {
    "silu of the product, silu((x @ W_gate) * (x @ W_up))": lambda a, u, s: _silu(a * u),
    "silu applied to x before the projection, silu(x) @ W_gate": lambda a, u, s: s * _silu(a / s) * u,
    "the branches added instead of multiplied, silu(x @ W_gate) + x @ W_up": lambda a, u, s: _silu(a) + u,
    "silu on the wrong branch, (x @ W_gate) * silu(x @ W_up)": lambda a, u, s: a * _silu(u),
    "silu on both branches, silu(x @ W_gate) * silu(x @ W_up)": lambda a, u, s: _silu(a) * _silu(u),
}


def _branch_probe(a, s, u):
    """Like _probe, but x @ W_gate = (a / s) @ diag(s) and x @ W_up = u[j] for hidden unit j.

    The output is then silu(a) * u, while silu applied to x (not to x @ W_gate), silu of the product and a sum
    of the branches all give something else.
    """
    x, W_gate, W_up, W_down = _probe(a)
    d_ff = a.shape[-1]
    x[..., :d_ff] = a / s
    W_gate[:d_ff] = np.diag(s)
    W_up[d_ff] = u
    return x, W_gate, W_up, W_down


# -- the invariants ------------------------------------------------------------------

@invariant("shape", "the output has x's shape (..., d_model), for zero to three leading dimensions")
def shape(cand, ref, rng):
    for x_shape, d_ff in CASES:
        x = rng.normal(size=x_shape)
        _call(cand, x, *_weights(rng, x_shape[-1], d_ff))


@invariant("position-wise", "each position is transformed on its own: slicing, flattening or batching the "
                            "positions gives the same rows")
def position_wise(cand, ref, rng):
    B, T, d_model, d_ff = 2, 4, 6, 10
    weights = _weights(rng, d_model, d_ff)
    x = rng.normal(scale=2.0, size=(B, T, d_model))
    if isinstance(attempt(_call, cand, x.reshape(B * T, d_model), *weights), Broke):
        return  # it fails on a plain (T, d_model) x as well: the layout is wrong, which shape reports
    full, label = _call(cand, x, *weights)
    context = "each position computed alone must equal that position of swiglu(x): positions must not mix"
    two_d, _ = _call(cand, x[0], *weights, what="x[0]")
    check_close(two_d, full[0], f"swiglu(x[0]) with x of shape {shape_of(x)}", context=context)
    for t in range(T):
        out, _ = _call(cand, x[:, t:t + 1], *weights, what=f"x[:, {t}:{t + 1}]")
        check_close(out, full[:, t:t + 1], f"swiglu(x[:, {t}:{t + 1}]) with x of shape {shape_of(x)}",
                    context=context)
    flat, _ = _call(cand, x.reshape(B * T, d_model), *weights, what="x.reshape(-1, d_model)")
    check_close(flat, full.reshape(B * T, d_model),
                f"swiglu(x.reshape(-1, d_model)) with x of shape {shape_of(x)}",
                context="flattening the leading dimensions must give the rows of swiglu(x)")
    one, _ = _call(cand, x[1, 2], *weights, what="x[1, 2]")
    check_close(one, full[1, 2], f"swiglu(x[1, 2]), a single position of shape {shape_of(x[1, 2])},",
                context="expected row [1, 2] of swiglu(x)")


@invariant("gate", "the gate is silu(x @ W_gate) = a * sigmoid(a): not sigmoid, relu or gelu, and not on x @ W_up")
def gate(cand, ref, rng):
    # One position (x of shape (1, d_model)) carries every value of a, so how positions are batched or flattened
    # (position-wise) plays no part; a layout the probe cannot run through at all (a transposed weight, a missing
    # down projection) is for shape to report. Judged at rtol 1e-4: float32 rounding is matches-reference's.
    grid = np.array([[-4.0, -2.0, -1.0, -0.5], [0.5, 1.0, 2.0, 4.0]])
    a = np.vstack([grid, rng.uniform(-6.0, 6.0, size=(3, 4))]).reshape(1, -1)
    x, W_gate, W_up, W_down = _probe(a)
    result = attempt(_call, cand, x, W_gate, W_up, W_down)
    if isinstance(result, Broke):
        return
    out, label = result
    want = ref.silu(a)
    got = out[:, : a.shape[1]]
    idx = worst_entry(got, want, 1e-4, 1e-7)
    if idx is None:
        check_close(out[:, a.shape[1]:], np.zeros((a.shape[0], 2)), label + " (probe)", rtol=1e-4, atol=1e-7,
                    context="features after d_ff should stay 0")
    else:
        setup = (f"{label}, with the weights chosen so that x @ W_up = 1 and output [t, j] = gate(a) for "
                 f"a = (x @ W_gate)[t, j]: at a = {fmt(a[idx])} the output is {fmt(got[idx])}, expected silu(a) = "
                 f"{fmt(want[idx])}")
        for name, fn in ALTERNATIVES.items():
            if allclose(got, fn(a), rtol=1e-5, atol=1e-7):
                raise Fail(f"{setup}. Over every a tried, your output equals {name}. SwiGLU's gate is "
                           "silu(x @ W_gate) = a * sigmoid(a), multiplied by the linear branch x @ W_up")
        raise Fail(f"{setup}. The gate is "
                   "silu(a) = a * sigmoid(a) on x @ W_gate, multiplied by the linear branch x @ W_up")
    # Second probe: x @ W_gate reached through a scaled input, and a linear branch u other than 1.
    a = rng.uniform(-6.0, 6.0, size=(1, 20))
    s = rng.uniform(1.5, 3.0, size=20)
    u = rng.choice([-1.0, 1.0], size=20) * rng.uniform(0.5, 2.0, size=20)
    x, W_gate, W_up, W_down = _branch_probe(a, s, u)
    result = attempt(_call, cand, x, W_gate, W_up, W_down)
    if isinstance(result, Broke):
        return
    out, label = result
    want = ref.silu(a) * u
    got = out[:, : a.shape[1]]
    idx = worst_entry(got, want, 1e-4, 1e-7)
    if idx is None:
        return
    j = idx[-1]
    setup = (f"{label}, with the weights chosen so that a = (x @ W_gate)[t, j] and u = (x @ W_up)[t, j] give "
             f"output [t, j] = silu(a) * u: at a = {fmt(a[idx])}, u = {fmt(u[j])} the output is {fmt(got[idx])}, "
             f"expected {fmt(want[idx])}")
    for name, fn in BRANCH_ALTERNATIVES.items():
        if allclose(got, fn(a, u, s), rtol=1e-5, atol=1e-7):
            raise Fail(f"{setup}. Over every a and u tried, your output equals {name}. SwiGLU is "
                       "silu(x @ W_gate) * (x @ W_up): silu on the gate's projection, then a product")
    raise Fail(f"{setup}. SwiGLU is silu(x @ W_gate) * (x @ W_up): silu on the gate's projection, times the "
               "linear branch")


# The documented range: gate pre-activations up to 1e4 in magnitude, and no further (a SiLU that clips the sigmoid's
# argument at +-30 is exact to 1e-9 up to there, and must pass at every seed).
MAX_GATE = 1e4


def _large_gates(rng, shape):
    """Gate pre-activations of both signs from 50 to 1e4 in magnitude at random positions, the rest moderate; in
    every call at least one above 1e3 and one below -1e3, past where exp(a) and exp(-a) overflow (about 709)."""
    a = rng.normal(scale=2.0, size=shape)
    big = rng.random(shape) < 0.6
    magnitude = 10 ** rng.uniform(np.log10(50.0), np.log10(MAX_GATE), size=shape)
    a = np.where(big, rng.choice([-1.0, 1.0], size=shape) * magnitude, a)
    flat = a.reshape(-1)
    at = rng.choice(flat.size, size=min(2, flat.size), replace=False)
    flat[at] = np.array([1.0, -1.0])[: at.size] * 10 ** rng.uniform(3.0, np.log10(MAX_GATE), size=at.size)
    return a


def _stable_ladder():
    """Every number of leading dimensions x may have (none to three), and the edges of the range."""
    rungs = [Rung(f"x with {len(r.value) - 1} leading dimension{'' if len(r.value) == 2 else 's'}, gates of shape "
                  f"{shape_of(np.empty(r.value))}", r.value) for r in dims(9, min_ndim=1, max_ndim=4)]
    return rungs


def _wide_probe(c, b, d_model):
    """x and weights of any widths with x @ W_gate = a, a[..., j] = c[...] * b[j], x @ W_up = 1, and hidden unit j
    summed into output feature j % d_model.

    x = [c, 1, 0, ...]: W_gate's row 0 is b, W_up's row 1 is ones, W_down[j, j % d_model] = 1. Each gate
    pre-activation is one exact product, so d_model (2 or more) and d_ff are free: a hidden layer four times wider
    than d_model as well as a d_model far wider than d_ff. Returns the four arrays and a.
    """
    d_ff = b.size
    x = np.zeros(c.shape + (d_model,))
    x[..., 0], x[..., 1] = c, 1.0
    W_gate, W_up = np.zeros((d_model, d_ff)), np.zeros((d_model, d_ff))
    W_gate[0], W_up[1] = b, 1.0
    W_down = np.zeros((d_ff, d_model))
    W_down[np.arange(d_ff), np.arange(d_ff) % d_model] = 1.0
    return (x, W_gate, W_up, W_down), c[..., None] * b


# Wide layers, where a "fast path" may take over: d_model and d_ff past 32, d_ff four times d_model, and each up to
# 1,031 (4,124 hidden units at the widest d_ff; few positions, so loops over positions, hidden units and features
# stay fast).
WIDE = [((2, 50), 48), ((3, 130), 9), ((2, 5, 12), 48), ((2, 34), 130), ((4, 3), 1_031), ((2, 1_031), 3)]


def _hidden_text(a, W_down, idx):
    """Which gate pre-activations output entry idx is made of: 'a = 812.3', or a sum over several hidden units."""
    units = np.flatnonzero(W_down[:, idx[-1]])
    values = a[idx[:-1]][units]
    if units.size == 0:
        return f"which no hidden unit feeds (column {idx[-1]} of W_down is 0)"
    if units.size == 1:
        return f"a = {fmt(values[0])}"
    if units.size <= 4:
        return (f"the sum of silu(a) over hidden units {', '.join(map(str, units))} (a = "
                f"{', '.join(fmt(v) for v in values)})")
    return (f"the sum of silu(a) over the {units.size} hidden units j with j % d_model = {idx[-1]} (a from "
            f"{fmt(values.min())} to {fmt(values.max())})")


@invariant("stable", "finite and correct for gate pre-activations from 50 up to 1e4 in magnitude, with none to "
                     "three leading dimensions, and at d_model and d_ff from 3 to 1,031")
def stable(cand, ref, rng):
    # Only numerical evidence counts: a result that is not finite for large gate pre-activations while the same
    # shapes with moderate ones are finite, or a wrong value at large ones from a candidate that is right at
    # moderate ones (any other difference is the business of `gate` and `matches-reference`). Every value stays
    # within the documented +-1e4. Each rung draws its probe, the moderate one or the large one.
    fixed = np.array([[1e4, -1e4, 1e3, -1e3], [800.0, -800.0, 710.0, -710.0], [50.0, -50.0, 200.0, -200.0]])
    fixed = fixed * rng.uniform(0.9, 1.0, fixed.shape)

    def draw_a(large_a):
        def draw(moderate):
            a = rng.normal(scale=2.0, size=large_a.shape) if moderate else large_a
            return _probe(a), a
        return draw

    def draw_wide(lead, d_model, d_ff):
        c = rng.choice([-1.0, 1.0], size=lead) * rng.uniform(0.8, 1.0, size=lead)  # |a| > 709 somewhere, both signs

        def draw(moderate):
            b = rng.normal(scale=2.0, size=d_ff) if moderate else _large_gates(rng, (d_ff,))
            return _wide_probe(c, b, d_model)
        return draw

    ladder = [Rung("the edges of the range (+-1e4, +-1e3, +-800, +-710, +-50)", draw_a(fixed))]
    ladder += [Rung(r.label, draw_a(_large_gates(rng, r.value))) for r in _stable_ladder()]
    ladder += [Rung(f"x of shape {shape_of(np.empty(x_shape))} and d_ff = {d_ff:,}",
                    draw_wide(x_shape[:-1], x_shape[-1], d_ff)) for x_shape, d_ff in WIDE]

    def judge(rung):
        moderate, _ = rung.value(True)
        got_mod = attempt(_call, cand, *moderate)
        if isinstance(got_mod, Broke) or not np.isfinite(got_mod[0]).all():
            return  # a crash, a wrong shape or a nan at moderate values is another bug, not overflow
        (x, W_gate, W_up, W_down), a = rung.value(False)
        result = attempt(_call, cand, x, W_gate, W_up, W_down)
        label = _label(x, W_gate, W_down)
        if isinstance(result, Broke):
            what = f"raised {result.text}" if result.raised else f"failed: {result.text}"
            raise Fail(f"{label} with gate pre-activations up to {fmt(np.abs(a).max())} in magnitude {what}; "
                       "the same shapes with moderate values work, so the size of the values breaks it "
                       "(build the sigmoid from exp(-|a|), which is at most 1)")
        got = result[0]
        if np.count_nonzero(W_down, axis=0).max() == 1:
            label += ", weights chosen so that output [..., j] = silu(a) with a = (x @ W_gate)[..., j]"
        else:
            label += (", weights chosen so that x @ W_up = 1 and output [..., k] is the sum of silu(a) over the hidden "
                      "units j = k, k + d_model, ... with a = (x @ W_gate)[..., j]")
        want = ref.silu(a) @ W_down
        bad = ~np.isfinite(got)
        if bad.any():
            # A nan spreads over every output of its position (nan * 0 is nan): name the entry fed by the largest a.
            top = np.max(np.where(W_down != 0, a[..., :, None], -np.inf), axis=-2)
            score = np.where(bad, np.maximum(top, -np.finfo(np.float64).max), -np.inf)  # a bad entry beats the rest
            idx = tuple(int(i) for i in np.unravel_index(int(np.argmax(score)), got.shape))
            why = ("exp(a) overflows to inf and inf / inf is nan: write the sigmoid as 1 / (1 + exp(-a)), or "
                   "build it from exp(-|a|)" if top[idx] > 0 else
                   "exp(-a) overflowed: build the sigmoid from exp(-|a|), which is at most 1")
            raise Fail(f"{label}: entry {list(idx)}, {_hidden_text(a, W_down, idx)}, gives {fmt(got[idx])}, "
                       f"expected {fmt(want[idx])} (moderate values of a come out finite); {why}")
        if not allclose(got_mod[0], ref.swiglu(*moderate), rtol=1e-6, atol=1e-9):
            return  # wrong already at moderate values: the gate or the layout, not the numerics
        # 1e-9 per hidden unit summed: what a sigmoid clipped at +-30 (exact to 1e-9 per unit) may add up to
        idx = worst_entry(got, want, 1e-6, 1e-9 * int(np.count_nonzero(W_down, axis=0).max()))
        if idx is not None:
            raise Fail(f"{label}: entry {list(idx)}, {_hidden_text(a, W_down, idx)}, gives {fmt(got[idx])}, "
                       f"expected {fmt(want[idx])}, although moderate values of a come out right. For large |a|, "
                       "silu(a) tends to a (a > 0) and to 0 (a < 0): do not clip a, and build the sigmoid from "
                       "exp(-|a|)")
    first_failing(ladder, judge)


# Every number of leading dimensions, then one call with a hidden layer of 65,536 entries (small enough for loops).
LADDER = [Rung(f"x of shape {shape_of(np.empty(r.value))}", (r.value, 10)) for r in dims(6, min_ndim=1, max_ndim=4)]
LARGE = Rung("x of shape (2053, 4) and d_ff = 33", ((2053, 4), 33))  # odd sizes: no chunk of positions ends on the last


@invariant("matches-reference", "matches a reference SwiGLU to rtol 1e-6, with none to three leading dimensions "
                                "and at a hidden layer of 65,536 entries")
def matches_reference(cand, ref, rng):
    for x_shape, d_ff in CASES:
        for scale in (0.5, 3.0):
            x = rng.normal(scale=scale, size=x_shape)
            weights = _weights(rng, x_shape[-1], d_ff)
            out, label = _call(cand, x, *weights)
            check_close(out, ref.swiglu(x, *weights), label)

    # Off float32's grid: float32 matmuls (on some path, or above some size) miss the sixth digit of some outputs.
    def judge(rung):
        x_shape, d_ff = rung.value
        x = beyond_f32(rng, x_shape, scale=3.0)
        weights = _weights(rng, x_shape[-1], d_ff)
        out, label = _call(cand, x, *weights)
        check_close(out, ref.swiglu(x, *weights), label, context="inputs off float32's grid",
                    question="is everything computed in float64 at this size?")
    first_failing([*LADDER, LARGE], judge)


@invariant("input-unchanged", "x, W_gate, W_up and W_down are not modified, with none to three leading dimensions "
                              "(and in every call of every check)")
def input_unchanged(cand, ref, rng):
    # The large rung is matches-reference's: every call compares its arguments, so a copy skipped above some size
    # is caught there, without a second slow call for a solution written with loops.
    # Every call compares its arguments before and after (the engine), and a change names the call and the check.
    def judge(rung):
        x_shape, d_ff = rung.value
        args = (rng.normal(size=x_shape), *_weights(rng, x_shape[-1], d_ff))
        for _ in range(2):  # twice: a change may come on a later call only
            attempt(cand.swiglu, *args)
    first_failing(LADDER, judge)


# -- known mistakes, recognised by behaviour on these probes --------------------

def probes(rng):
    # The last case is square (d_ff == d_model) on purpose: a transposed layout then runs and gives a wrong
    # answer, which tells it apart from code that only fails on the leading dimensions.
    for x_shape, d_ff in (((5, 6), 10), ((2, 3, 6), 4), ((6,), 10), ((2, 3, 6), 6)):
        yield "swiglu", (rng.normal(scale=2.0, size=x_shape), *_weights(rng, x_shape[-1], d_ff)), {}
    big = np.array([[1e3, -1e3, 60.0, -60.0], [2.0, -2.0, 800.0, -0.5]]) * rng.uniform(0.9, 1.1, size=(2, 4))
    yield "swiglu", _probe(big), {}
    # The same large gates as one position (1-D x) and with a batch axis: a sigmoid that overflows on one code path
    # only shows on the path it takes.
    yield "swiglu", _probe(big[0]), {}
    yield "swiglu", _probe(big[None]), {}
    yield "swiglu", _rounding_probe(rng), {}


def _rounding_probe(rng):
    """x and weights on which float32 arithmetic errs by up to 1/16, and every float32 implementation alike.

    520 positions and d_ff = 16 (8,320 hidden units, a size that code switching to float32 "for large inputs" is
    likely to reach). x[p] = [a (d_ff values), 1 + delta_p, 1] with delta_p off float32's grid, W_gate copies a and
    W_up gives every hidden unit u_p = 2**20 * (1 + delta_p) - 2**20. In float32 that is 2**20 times the rounding of
    1 + delta_p minus 1, exactly (products by a power of two and the difference of two close numbers are exact, in
    any order of summation): it differs from float64's by up to 1/16 of u_p's 0.1 to 1, far beyond any tolerance,
    while the float32 rounding of silu(a) stays near 1e-7.
    """
    P, d_ff = 520, 16
    x = np.zeros((P, d_ff + 2))
    x[:, :d_ff] = rng.uniform(0.5, 3.0, size=(P, d_ff))
    x[:, d_ff] = 1.0 + rng.uniform(1e-7, 1e-6, size=P)
    x[:, d_ff + 1] = 1.0
    W_gate = np.zeros((d_ff + 2, d_ff))
    W_gate[:d_ff] = np.eye(d_ff)
    W_up = np.zeros((d_ff + 2, d_ff))
    W_up[d_ff], W_up[d_ff + 1] = 2.0**20, -(2.0**20)
    W_down = np.zeros((d_ff, d_ff + 2))
    W_down[:, :d_ff] = np.eye(d_ff)
    return x, W_gate, W_up, W_down


def _ffn(gate_of):
    """A SwiGLU whose hidden layer is gate_of(x @ W_gate, x @ W_up)."""
    def ffn(x, W_gate, W_up, W_down):
        return gate_of(x @ W_gate, x @ W_up) @ W_down
    return ffn


def _sig(a):
    return 1.0 / (1.0 + np.exp(-a))


_sigmoid_gate = mistake("sigmoid-gate", "the gate is silu(a) = a * sigmoid(a), not sigmoid(a) (that is GLU)")(
    _ffn(lambda a, u: _sig(a) * u))
_relu_gate = mistake("relu-gate", "the gate is silu(a) = a * sigmoid(a), not relu(a) (that is ReGLU)")(
    _ffn(lambda a, u: np.maximum(a, 0.0) * u))
_gelu_gate = mistake("gelu-gate", "the gate is silu(a) = a * sigmoid(a), not gelu(a) (that is GeGLU)")(
    _ffn(lambda a, u: ALTERNATIVES["gelu(a) in its tanh approximation (that is GeGLU)"](a) * u))
_gelu_erf_gate = mistake("gelu-erf-gate", "the gate is silu(a) = a * sigmoid(a), not the exact gelu(a) "
                                          "(that is GeGLU)")(_ffn(lambda a, u: _gelu_erf(a) * u))
_silu_on_up = mistake("silu-on-up-branch", "apply silu to x @ W_gate and leave x @ W_up linear, not the other "
                                           "way round")(_ffn(lambda a, u: a * u * _stable_sigmoid(u)))
_no_gate_activation = mistake("no-gate-activation", "apply silu to x @ W_gate before multiplying by x @ W_up")(
    _ffn(lambda a, u: a * u))
_clipped_gate = mistake("clipped-gate", "do not clip the gate pre-activation: silu(a) tends to a for large a, so "
                                        "clipping changes the answer")(
    _ffn(lambda a, u: np.clip(a, -30.0, 30.0) * _stable_sigmoid(np.clip(a, -30.0, 30.0)) * u))


def _clipped_at(bound):
    return mistake("clipped-gate", _clipped_gate.mistake_message)(
        _ffn(lambda a, u: np.clip(a, -bound, bound) * _stable_sigmoid(np.clip(a, -bound, bound)) * u))


# The bounds people pick "against overflow": round numbers, and where exp overflows in float32 and float64.
_clipped_gate_20, _clipped_gate_50, _clipped_gate_88 = _clipped_at(20.0), _clipped_at(50.0), _clipped_at(88.0)
_clipped_gate_500, _clipped_gate_700 = _clipped_at(500.0), _clipped_at(700.0)
_exp_ratio = mistake("sigmoid-overflow", "exp(a) / (1 + exp(a)) is inf / inf = nan for large a: use "
                                         "1 / (1 + exp(-a)) or a form built from exp(-|a|)")(
    _ffn(lambda a, u: a * (np.exp(a) / (1.0 + np.exp(a))) * u))


_silu_of_product = mistake("silu-of-product", "apply silu to x @ W_gate alone, then multiply by x @ W_up; not "
                                              "silu of the product")(_ffn(lambda a, u: _silu(a * u)))
_added_branches = mistake("added-branches", "multiply the two branches, silu(x @ W_gate) * (x @ W_up); do not add "
                                            "them")(_ffn(lambda a, u: _silu(a) + u))


@mistake("silu-before-projection", "apply silu to the projection x @ W_gate, not to x before projecting")
def _silu_before_projection(x, W_gate, W_up, W_down):
    return ((_silu(x) @ W_gate) * (x @ W_up)) @ W_down


@mistake("no-down-projection", "project the hidden activations back to d_model with @ W_down")
def _no_down(x, W_gate, W_up, W_down):
    a = x @ W_gate
    return a * _stable_sigmoid(a) * (x @ W_up)


@mistake("transposed-weights", "the weights are (in, out): x @ W_gate, not x @ W_gate.T as with nn.Linear")
def _transposed(x, W_gate, W_up, W_down):
    a = x @ W_gate.T
    return (a * _stable_sigmoid(a) * (x @ W_up.T)) @ W_down.T


@mistake("mixes-positions", "flatten the leading dimensions with reshape(-1, d_model); reshape(d_model, -1).T mixes "
                            "the features of different positions")
def _scrambled(x, W_gate, W_up, W_down):
    d_model = x.shape[-1]
    flat = x.reshape(d_model, -1).T
    a = flat @ W_gate
    return ((a * _stable_sigmoid(a) * (flat @ W_up)) @ W_down).T.reshape(x.shape)


@mistake("two-dims-only", "x may have any number of leading dimensions: use `...` in einsum, or `@`")
def _two_d_only(x, W_gate, W_up, W_down):
    a = np.einsum("td,df->tf", x, W_gate)
    return np.einsum("tf,fd->td", a * _stable_sigmoid(a) * np.einsum("td,df->tf", x, W_up), W_down)


_flipped_sign = mistake("flipped-sigmoid-sign", "the sigmoid is 1 / (1 + exp(-a)), with a minus sign: 1 / (1 + exp(a)) "
                                                "is sigmoid(-a)")(_ffn(lambda a, u: a * _stable_sigmoid(-a) * u))


@mistake("down-transposed", "W_down is (d_ff, d_model): multiply by W_down itself, not W_down.T, which only fits "
                            "when d_ff == d_model")
def _down_transposed(x, W_gate, W_up, W_down):
    a = x @ W_gate
    return (_silu(a) * (x @ W_up)) @ W_down.T


@mistake("overflow-error-one-position", "a single position (1-D x) raises OverflowError for large gate "
                                        "pre-activations: compute the sigmoid with NumPy from exp(-|a|) on every "
                                        "path, not with math.exp on each value")
def _math_exp_1d(x, W_gate, W_up, W_down):
    if np.ndim(x) != 1:
        return _ffn(lambda a, u: _silu(a) * u)(x, W_gate, W_up, W_down)
    a = x @ W_gate
    gate = np.array([v / (1.0 + math.exp(-v)) for v in a])
    return (gate * (x @ W_up)) @ W_down


# The same mistake on some code paths only: a sigmoid built from exp(-|a|) for (T, d_model), exp(a) / (1 + exp(a))
# for 1-D and batched x. One id with the fully unstable variant, so that a file unstable everywhere is named once.
@mistake(_exp_ratio.mistake_id, _exp_ratio.mistake_message)
def _stable_2d_only(x, W_gate, W_up, W_down):
    if np.ndim(x) == 2:
        return _ffn(lambda a, u: _silu(a) * u)(x, W_gate, W_up, W_down)
    return _ffn(lambda a, u: a * (np.exp(a) / (1.0 + np.exp(a))) * u)(x, W_gate, W_up, W_down)


@mistake("float32-arithmetic", "compute in float64 at every size: float32 keeps about seven digits, which a "
                               "hidden layer with cancelling terms turns into visible errors")
def _float32_large(x, W_gate, W_up, W_down):
    # Float32 only on a large input: on the small probes float32's rounding is noise around the tolerance, which
    # would make the verdict a matter of chance; the rounding probe tells it apart exactly, at 8,320 hidden units.
    x = np.asarray(x, dtype=np.float64)
    if x.size // x.shape[-1] * np.shape(W_gate)[1] >= 4096:
        x, W_gate, W_up, W_down = (np.asarray(w, dtype=np.float32) for w in (x, W_gate, W_up, W_down))
    return _ffn(lambda a, u: _silu(a) * u)(x, W_gate, W_up, W_down).astype(np.float64)
