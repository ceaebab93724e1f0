"""The rich-free tables of `list` and `status`, and the imports those commands may not make."""

import io
import os
import re
import subprocess
import sys

import pytest

from attnprep import plain

COLUMNS = [("slug", "left"), ("title", "left"), ("best", "right")]
ROWS = [["softmax", "Stable softmax", "1:05"],
        ["attention", ("Batched attention with masks and cross-attention", "green"), "-"]]
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def test_lines_line_up_and_numbers_align_right():
    lines = plain.render("attnprep exercises", COLUMNS, ROWS).splitlines()
    assert lines[0] == "attnprep exercises"
    assert len({len(line) for line in lines[1:]}) == 1, lines
    assert lines[1].startswith("┏") and lines[-1].startswith("└")
    body = [line for line in lines if line.startswith("│")]
    assert body[0].split("│")[1:-1] == [" softmax   ", " Stable softmax" + " " * 35, " 1:05 "]
    assert body[1].split("│")[3] == "    - "


def test_narrow_terminal_wraps_whole_words_within_the_width():
    lines = plain.render("t", COLUMNS, ROWS, limit=40).splitlines()
    assert all(len(line) <= 40 for line in lines)
    cells = " ".join(line.split("│")[2].strip() for line in lines if line.startswith("│"))
    assert cells.split() == "Stable softmax Batched attention with masks and cross-attention".split()


def test_too_narrow_overflows_rather_than_breaking_words():
    lines = plain.render("t", COLUMNS, ROWS, limit=10).splitlines()
    assert any("cross-attention" in line for line in lines)


def test_colour_only_when_asked_and_it_does_not_move_the_columns():
    grey = plain.render("t", COLUMNS, ROWS)
    coloured = plain.render("t", COLUMNS, ROWS, colour=True)
    assert ANSI.search(grey) is None
    assert "\x1b[32mBatched" in coloured and "\x1b[1mslug\x1b[0m" in coloured
    assert ANSI.sub("", coloured) == grey


@pytest.mark.parametrize(("env", "expected"), [({"NO_COLOR": "1", "FORCE_COLOR": "1"}, False),
                                               ({"FORCE_COLOR": "1"}, True),
                                               ({"TERM": "dumb", "FORCE_COLOR": "1"}, False),
                                               ({}, False)])
def test_colour_follows_no_color_force_color_and_the_terminal(monkeypatch, env, expected):
    for name in ("NO_COLOR", "FORCE_COLOR", "TERM"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert plain.wants_colour(io.StringIO()) is expected  # a StringIO is not a terminal


def test_ascii_box_for_a_stream_that_cannot_encode_box_drawing(monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding="ascii")
    plain.print_table("t", COLUMNS, ROWS, stream)
    text = raw.getvalue().decode("ascii")
    assert text.splitlines()[1].startswith("+-") and "| softmax" in text


def test_a_pipe_gets_one_line_per_row(monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    stream = io.StringIO()
    plain.print_table("t", COLUMNS, ROWS, stream)
    assert any("Batched attention with masks and cross-attention" in line for line in stream.getvalue().splitlines())


def test_minutes():
    assert [plain.minutes(s) for s in (None, 0, 65.4, 3600 + 62)] == ["-", "0:00", "1:05", "1:01:02"]


@pytest.mark.parametrize("args", [["--help"], ["list"], ["status"]])
def test_fast_commands_import_neither_rich_nor_numpy_nor_jinja2(tmp_path, args):
    env = {**os.environ, "ATTNPREP_HOME": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "attnprep", *args], capture_output=True,
                          text=True, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr[-2000:]
    imported = {line.rsplit("|", 1)[-1].strip().split(".")[0] for line in proc.stderr.splitlines() if "|" in line}
    assert "typer" in imported  # the parse worked: it does list what was imported
    assert not imported & {"rich", "numpy", "jinja2", "tomllib"}
