"""`attnprep explain`: every exercise has about five minutes of reading, with the figures that fit."""

import re

import pytest
from typer.testing import CliRunner

from attnprep import catalogue
from attnprep.cli import app

# Reference figures that an explanation of the exercise must quote.
FIGURES = {
    "kvcache": ["131,072", "128 KiB", "122.07"],
    "params": ["8,030,261,248", "14.96", "70.2%"],
    "sampling": ["0.7155", "0.9264"],
    "gqa": ["131,072"],
}


@pytest.mark.parametrize("ex", catalogue.exercises(), ids=lambda e: e.slug)
def test_explanation_exists_and_is_a_real_read(ex):
    text = ex.explanation()
    words = len(re.findall(r"[A-Za-z0-9']+", text))
    assert 450 <= words <= 1600, f"{words} words: about five minutes of reading is 600 to 1200"
    assert text.lstrip().startswith("# ")
    for figure in FIGURES.get(ex.slug, []):
        assert figure in text, f"{ex.slug}: the explanation should quote {figure}"


def test_explain_command():
    result = CliRunner().invoke(app, ["explain", "softmax"])
    assert result.exit_code == 0 and "softmax" in result.stdout.lower()
    assert CliRunner().invoke(app, ["explain", "nope"]).exit_code == 2
