"""Float32 results are judged at float32 precision; float64 results at float64, at every size."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zlib

import numpy as np
import pytest
from corpus import cases, grade_case, verdict
from float32_port import FLOAT_EXERCISES, twin_source

from attnprep import catalogue, precision
from attnprep.engine import grade, grader_module
from attnprep.grading import Fail, check_close

ALL_SEEDS = os.environ.get("ATTNPREP_ALL_SEEDS") == "1"


def _twin_report(case, seed):
    ex = catalogue.get(case.slug)
    source = twin_source(case.path.read_text(encoding="utf-8"), grader_module(ex).FUNCTIONS)
    return grade(ex, source, str(case.path), seed=seed, timeout=60.0)


def _seed_of(case) -> int:
    """One seed per file, different from file to file (0 to 19): across files every seed is tried."""
    return zlib.crc32(case.id.encode()) % 20


FLOAT_CASES = [c for c in cases() if c.slug in FLOAT_EXERCISES]


# Wrong files whose float32 twin is right, and why.
TWIN_IS_RIGHT = {
    "softmax/wrong_exp_clip_low": "it clips the shifted scores at -700, and exp(-700) is exactly 0 in float32",
}


def _float32_is_the_mistake(case) -> bool:
    """A wrong file whose mistake is computing in float32 while returning float64: its float32 twin is right."""
    if case.id in TWIN_IS_RIGHT:
        return True
    text = case.path.read_text(encoding="utf-8")
    header = "\n".join(line for line in text.splitlines() if line.startswith("#"))
    return "float32" in case.path.name or "f32" in case.path.name or "float32-arithmetic" in header or (
        "float32" in header.split("# mistake:", 1)[-1] if "# mistake:" in header else False)


# Correct files whose twin is no faithful float32 port, and why.
TWIN_NOT_FAITHFUL = {
    **{f"{slug}/wrong_fill_before_scale": "its fill leaks only at a head size of 128 with scores near -1e4, which "
                                          "float64 results are judged on and float32 ones are not (the raw products "
                                          "of -1.1e5 round past the tolerance however the code is written)"
       for slug in ("mha", "gqa")},
    "attention/wrong_fill_below_row_minimum": "its blocked keys keep a weight of about exp(-50), seen only next to a "
                                              "value row of 1e30, where a float32 result's tolerance is 1e30 times "
                                              "float32's epsilon",
    "flash/correct_key_strips_neg1e30": "its np.full(T, -1e30) stays float64, so the twin mixes float32 scores into "
                                        "float64 temporaries: more memory at T = 4,096 than either real version",
    "decode/wrong_views_of_one_buffer": "the twin's wrapper casts every result to float32, a copy, so the views "
                                        "into the module's buffer (the mistake) never reach the judge",
    "decode/wrong_writes_into_view_base": "the twin's wrapper hands the function float32 copies of the cache, "
                                          "which are no views of the caller's buffer, so what it writes into the "
                                          "buffer behind them never reaches the caller",
    "softmax/wrong_mask_written_in_place_1d": "the twin's wrapper hands the function a float32 copy of z, so what it "
                                              "writes into its -inf entries never reaches the caller's array",
    "softmax/wrong_mask_written_through_view": "the twin's wrapper hands the function a float32 copy of z, so what "
                                               "it writes through the view never reaches the caller's array",
    # Mistakes below float32's resolution, judged at float64 precision only.
    "rmsnorm/wrong_one_pass_variance_batched": "a one-pass variance is off only where the mean is far above the "
                                               "spread, which float32 inputs cannot hold to begin with",
    "rmsnorm/wrong_one_pass_variance_large_tensors": "a one-pass variance is off only where the mean is far above "
                                                     "the spread, which float32 inputs cannot hold to begin with",
    "rmsnorm/wrong_one_pass_variance_wide_rows": "a one-pass variance is off only where the mean is far above the "
                                                 "spread, which float32 inputs cannot hold to begin with",
    "softmax/wrong_flushes_underflow": "it zeroes probabilities below 1e-15, which float32 cannot tell from rounding",
    "sampling/wrong_top_p_within_1e6": "it drops tokens of probability below 1e-6 at top_p = 1, where float32's "
                                       "running total already rounds to 1",
}


@pytest.mark.parametrize("case", [c for c in FLOAT_CASES if c.passes], ids=lambda c: c.id)
def test_float32_twin_of_a_correct_file_passes(case):
    if case.id in TWIN_NOT_FAITHFUL:
        pytest.skip(TWIN_NOT_FAITHFUL[case.id])
    seeds = range(20) if ALL_SEEDS else [_seed_of(case)]
    for seed in seeds:
        report = _twin_report(case, seed)
        if report.precision != precision.FLOAT32:
            pytest.skip("the file returns lists or float64 of its own making: it has no float32 twin")
        failed = {i.id: i.message for i in report.invariants if not i.passed}
        assert report.status == "pass", f"seed {seed}: {failed or report.message}"


@pytest.mark.parametrize("case", [c for c in FLOAT_CASES if not c.passes and not _float32_is_the_mistake(c)],
                         ids=lambda c: c.id)
def test_float32_twin_of_a_wrong_file_still_fails(case):
    if case.id in TWIN_NOT_FAITHFUL:
        pytest.skip(TWIN_NOT_FAITHFUL[case.id])
    report = _twin_report(case, _seed_of(case))
    if report.precision != precision.FLOAT32:
        pytest.skip("the file returns lists or float64 of its own making: it has no float32 twin")
    assert report.status != "pass", "the float32 twin of a wrong file passes every check"


def test_a_float64_result_computed_in_float32_for_large_inputs_is_still_wrong():
    case = next(c for c in cases() if c.id == "softmax/wrong_float32_large")
    report = grade_case(case)
    assert report.precision == precision.FLOAT64
    assert verdict(case, report) is None and "matches-reference" in report.failed_ids


SOFTMAX_F32 = """
import numpy as np


def softmax(z, axis=-1):
    z = np.asarray(z, dtype=np.float32)
    e = np.exp(z - z.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)
"""


def _cli(tmp_path, *args):
    env = {**os.environ, "ATTNPREP_HOME": str(tmp_path / "home"), "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-m", "attnprep", *args], capture_output=True, text=True, env=env,
                          timeout=120)


def test_check_says_once_that_a_float32_file_was_judged_at_float32(tmp_path):
    path = tmp_path / "softmax.py"
    path.write_text(SOFTMAX_F32)
    proc = _cli(tmp_path, "check", str(path), "--exercise", "softmax")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count("judged at float32 precision") == 1
    data = json.loads(_cli(tmp_path, "check", str(path), "--exercise", "softmax", "--json").stdout)
    assert data["precision"] == "float32" and data["status"] == "pass"


def test_float16_results_are_held_to_float32_and_told_why(tmp_path):
    path = tmp_path / "softmax.py"
    path.write_text(SOFTMAX_F32.replace("np.float32", "np.float16"))
    proc = _cli(tmp_path, "check", str(path), "--exercise", "softmax")
    assert proc.returncode == 1
    assert "float16 and bfloat16 results cannot reach" in proc.stdout


def test_a_float64_file_is_judged_at_float64(tmp_path):
    path = tmp_path / "softmax.py"
    path.write_text(SOFTMAX_F32.replace("np.float32", "np.float64"))
    data = json.loads(_cli(tmp_path, "check", str(path), "--exercise", "softmax", "--json").stdout)
    assert data["precision"] == "float64" and data["status"] == "pass"
    assert "judged at" not in _cli(tmp_path, "check", str(path), "--exercise", "softmax").stdout


def test_closeness_shows_the_digits_that_differ_the_relative_error_and_the_tolerance():
    with pytest.raises(Fail) as caught:
        check_close(np.array([0.04023631, 0.5]), np.array([0.04023641, 0.5]), "softmax(z)")
    text = str(caught.value)
    assert "entry [0] is 0.0402363, expected 0.0402364" in text
    assert "relative error 2.5e-06, tolerance 1e-06" in text


def test_enough_digits_are_shown_to_see_a_difference():
    with pytest.raises(Fail) as caught:
        check_close(np.array([0.402363112]), np.array([0.402363312]), "softmax(z)", rtol=1e-8)
    assert "is 0.40236311, expected 0.40236331" in str(caught.value)


def test_precision_of_a_result():
    assert precision.of_result(np.zeros(3, np.float32)) == "float32"
    assert precision.of_result((np.zeros(3), {"k": np.zeros(2, np.float32)})) == "float32"
    assert precision.of_result(np.float32(1.0)) == "float32"
    assert precision.of_result(np.zeros(3, np.float16)) == "float16"
    assert precision.of_result([1.0, 2.0]) is None and precision.of_result(3) is None
    assert precision.lowest([None, "float64", "float32"]) == "float32"
    assert precision.lowest([None]) == "float64"


def test_the_judge_s_quick_closeness_test_never_passes_what_np_isclose_fails():
    """grading._all_finite_and_close is a shortcut of worst_entry and allclose: when it says close, np.isclose must."""
    from attnprep.grading import _all_finite_and_close

    rng = np.random.default_rng(0)
    passed = 0
    for _ in range(4000):
        shape = tuple(int(n) for n in rng.integers(1, 4, size=rng.integers(0, 3)))
        a = rng.normal(size=shape)
        b = a + rng.choice([0, 1e-7, 1e-5, 1e-9], size=shape) * rng.normal(size=shape)
        if rng.random() < 0.2:
            a = np.where(rng.random(shape) < 0.3, rng.choice([np.nan, np.inf, -np.inf]), a)
        if rng.random() < 0.2:
            b = np.where(rng.random(shape) < 0.3, rng.choice([np.nan, np.inf, -np.inf]), b)
        if rng.random() < 0.1:
            a = a.astype(np.float32)
        if rng.random() < 0.05:
            b = np.broadcast_to(b, (2, *np.shape(b)))
        with np.errstate(all="ignore"):
            quick = _all_finite_and_close(a, b, 1e-6, 1e-9)
            assert not quick or np.isclose(a, b, rtol=1e-6, atol=1e-9, equal_nan=True).all(), (a, b)
        passed += quick
    assert passed > 1000  # and it does settle most cases
    assert not _all_finite_and_close(np.ma.masked_array([1.0], mask=[True]), np.array([5.0]), 1e-6, 0.0)
    assert not _all_finite_and_close([1.0], [1.0], 1e-6, 0.0)  # lists: np.isclose's way
