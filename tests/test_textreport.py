"""The check report drawn without rich (textreport) is the one rich draws (render.report), character for character."""

from __future__ import annotations

import re

import pytest
from rich.console import Console

from attnprep import render, textreport
from attnprep.report import InvariantResult, Report

LONG = ("weights[0, 1, 3, 2] is 0.25, expected 0.0: query 3 must not attend to the later key 2 for x of shape "
        "(B=2, T=5, d_model=16), n_heads=4 (d_head=4); is the mask built with np.triu(..., k=1)?")


def _reports() -> list[tuple[Report, bool]]:
    passed = Report("mha", "mha.py", "pass", elapsed_s=0.31, seed=0, clock={"elapsed_s": 75, "target_s": 2400},
                    invariants=[InvariantResult("shape", "causal_mha returns y of shape (B, T, d_model)", "pass"),
                                InvariantResult("upper-triangle-zero", "weights are 0.0 above the diagonal", "pass")])
    failed = Report("mha", "work/mha.py", "fail", elapsed_s=1.2, seed=3, clock={"elapsed_s": 2500, "target_s": 2400},
                    precision="float32",
                    invariants=[InvariantResult("shape", "causal_mha returns y of shape (B, T, d_model)", "pass"),
                                InvariantResult("upper-triangle-zero", "weights are 0.0 above the diagonal", "fail",
                                                LONG),
                                InvariantResult("prefix", "outputs at the first t positions do not change", "fail",
                                                LONG),
                                InvariantResult("scale", "scores are divided by sqrt(d_head)", "not-judged",
                                                "not judged: no call returned a result"),
                                InvariantResult("long", "T = 1,031", "timeout", "took longer than 2.0s"),
                                InvariantResult("last", "never ran", "skipped", "no time left")],
                    mistakes=[{"id": "mask-on-diagonal", "message": "the diagonal is masked too: use k=1 " * 4}])
    broken = Report("softmax", "softmax.py", "error", message="SyntaxError on line 3: invalid syntax " * 3,
                    elapsed_s=0.05, precision="float16")
    fresh = Report("softmax", "softmax.py", "pass", elapsed_s=0.2, invariants=[
        InvariantResult("stable", "no overflow for large inputs", "pass")])
    return [(passed, False), (failed, False), (broken, False), (fresh, True)]


CONFIGS = [{}, {"COLUMNS": "40"}, {"COLUMNS": "120"}, {"COLUMNS": "20"}, {"FORCE_COLOR": "1"},
           {"FORCE_COLOR": "1", "NO_COLOR": "1"}, {"FORCE_COLOR": "1", "TERM": "dumb"},
           {"TTY_COMPATIBLE": "1", "COLUMNS": "50"}, {"FORCE_COLOR": ""}]


@pytest.mark.parametrize("env", CONFIGS, ids=lambda env: ",".join(f"{k}={v}" for k, v in env.items()) or "piped")
def test_the_report_without_rich_is_the_one_rich_draws(env, monkeypatch, capsys):
    for name in ("COLUMNS", "LINES", "FORCE_COLOR", "NO_COLOR", "TERM", "TTY_COMPATIBLE", "COLORTERM"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(render, "out", Console(file=render._Trimmed("stdout"), highlight=False))
    for rep, started_now in _reports():
        render.report(rep, clock_started_now=started_now)
        render.next_step(rep, rep.exercise, 10.0, rep.file)
        by_rich = capsys.readouterr().out
        textreport.report(rep, clock_started_now=started_now)
        textreport.next_step(rep, rep.exercise, 10.0, rep.file)
        ours = capsys.readouterr().out
        plain = re.sub(r"\x1b\[[0-9;]*m", "", ours)
        assert plain == re.sub(r"\x1b\[[0-9;]*m", "", by_rich)
        # The same styles on the same text; rich may split a run of one style into pieces.
        assert _styled_chars(ours) == _styled_chars(by_rich)
        styled = bool(env.get("FORCE_COLOR") or env.get("TTY_COMPATIBLE") == "1") and env.get("TERM") != "dumb"
        assert ("\x1b[" in ours) == styled


def _styled_chars(text: str) -> list[tuple[str, str]]:
    """Each visible character with the SGR codes in force for it."""
    out, codes = [], ""
    for piece in re.split(r"(\x1b\[[0-9;]*m)", text):
        if piece.startswith("\x1b["):
            codes = "" if piece == "\x1b[0m" else piece
        else:
            out += [(ch, codes) for ch in piece if ch != " "]  # a space's style does not show
    return out


def test_a_report_with_what_the_file_printed_puts_rich_s_panel_in_its_place(monkeypatch, capsys):
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.setattr(render, "out", Console(file=render._Trimmed("stdout"), highlight=False))
    rep = _reports()[0][0]
    rep.output = "hello from the file"
    textreport.report(rep)
    shown = capsys.readouterr().out
    assert shown.index("upper-triangle-zero") < shown.index("hello from the file") < shown.index("passed")
    assert "your file printed" in shown


def test_on_windows_rich_draws_the_report(monkeypatch, capsys):
    """A legacy Windows console needs rich's win32 calls: there textreport hands the report to render."""
    seen = []
    monkeypatch.setattr(textreport, "_WINDOWS", True)
    monkeypatch.setattr(render, "report", lambda rep, started=False: seen.append(("report", rep.exercise)))
    monkeypatch.setattr(render, "next_step", lambda rep, slug, timeout, file: seen.append(("next", slug)))
    rep = _reports()[1][0]
    textreport.report(rep)
    textreport.next_step(rep, "mha", 10.0, rep.file)
    assert seen == [("report", "mha"), ("next", "mha")] and capsys.readouterr().out == ""
