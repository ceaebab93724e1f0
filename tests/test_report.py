"""`attnprep report --html`: one self-contained page whose chart reads well, checked in headless Chromium."""

import os
import re
import shutil
import subprocess
import sys
import tempfile
from html.parser import HTMLParser
from pathlib import Path

import pytest
from png import read_png

from attnprep import catalogue, state

ATTNPREP = str(Path(sys.executable).with_name("attnprep"))
# Seconds to the first pass per exercise: 5, 10 and 20 minutes, one 10-hour outlier and one of 4 seconds.
FIRST_PASS = {"softmax": 300.0, "causal": 600.0, "mha": 1200.0, "kvcache": 36000.0, "xent": 4.0}


class Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.rows, self.external, self.bars, self.styles = [], [], [], [], {}
        self.text: list[str] = []
        self._bar = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.append(tag)
        if tag == "tr" and "data-slug" in attrs:
            self.rows.append(attrs["data-slug"])
        if "data-bar" in attrs:
            self._bar = attrs["data-bar"]
            self.bars.append(self._bar)
        if self._bar and attrs.get("class", "").split()[:1] in (["bar"], ["target"]):
            width = re.search(r"(width|left): ([\d.]+)%", attrs["style"])
            self.styles[(self._bar, attrs["class"].split()[0])] = float(width.group(2))
        for key in ("src", "href"):
            if key in attrs:
                self.external.append(attrs[key])
        if tag in ("link", "script"):
            self.external.append(tag)

    def handle_data(self, data):
        if data.strip():
            self.text.append(data.strip())


@pytest.fixture
def page(tmp_path, monkeypatch):
    home = tmp_path / "home"
    monkeypatch.setenv("ATTNPREP_HOME", str(home))
    for slug, seconds in FIRST_PASS.items():
        state.record_start(slug, tmp_path / f"{slug}.py")
        state.record_check(slug, "fail", ["stable", "masked-entries"], {"elapsed_s": seconds / 3})
        state.record_check(slug, "fail", ["stable"], {"elapsed_s": seconds / 2})
        state.record_check(slug, "pass", [], {"elapsed_s": seconds})
    state.record_start("sampling", tmp_path / "sampling.py")
    state.record_check("sampling", "fail", ["temperature"], {"elapsed_s": 50.0})
    out = tmp_path / "report.html"
    result = subprocess.run([ATTNPREP, "report", "--html", str(out)], capture_output=True, text=True,
                            env={**os.environ, "ATTNPREP_HOME": str(home)})
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"wrote {out}"
    return out


def test_page_is_self_contained_with_table_and_chart(page):
    text = page.read_text()
    parsed = Page()
    parsed.feed(text)
    assert parsed.rows == catalogue.slugs() and parsed.bars == catalogue.slugs()
    assert parsed.external == []  # no scripts, styles or fonts from elsewhere
    assert "@import" not in text and "url(" not in text
    assert "stable (2)" in text and "masked-entries (1)" in text
    assert 'class="num over"' in text  # the 10-hour pass is over its target


def test_chart_scale_values_targets_and_outlier(page):
    parsed = Page()
    parsed.feed(page.read_text())
    bars = {slug: parsed.styles[(slug, "bar")] for slug in FIRST_PASS}
    targets = {slug: parsed.styles[(slug, "target")] for slug in catalogue.slugs()}
    # The axis holds the longest target (45 min) rounded to a tick: 0 to 50 minutes, labelled every 10.
    ticks = re.findall(r'class="tick" style="left: ([\d.]+)%">(\d+)<', page.read_text())
    assert ticks == [(f"{k * 20}.0", str(k * 10)) for k in range(6)]
    assert any("minutes to the first passing check" in t for t in parsed.text)
    assert bars["softmax"] == 10.0 and bars["causal"] == 20.0 and bars["mha"] == 40.0
    assert targets["softmax"] == 20.0 and targets["flash"] == 90.0
    assert bars["kvcache"] == 100.0 and "10:00:00, off the scale" in parsed.text  # capped, value printed
    assert 0 < bars["xent"] < 1 and "0:04" in parsed.text  # seconds still show, with their value
    for value in ("5:00", "10:00", "20:00"):
        assert value in parsed.text
    assert parsed.text.count("not passed yet") == len(catalogue.slugs()) - len(FIRST_PASS)


def test_terminal_report(page, tmp_path):
    result = subprocess.run([ATTNPREP, "report"], capture_output=True, text=True,
                            env={**os.environ, "ATTNPREP_HOME": str(tmp_path / "home")})
    assert result.returncode == 0 and "stable (2)" in result.stdout


BROWSER = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
HEADLESS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--hide-scrollbars"]
BLUE, RED = (0x25, 0x63, 0xEB), (0xDC, 0x26, 0x26)


def _browser(*args):
    with tempfile.TemporaryDirectory() as profile:
        return subprocess.run([BROWSER, *HEADLESS, f"--user-data-dir={profile}", *args], capture_output=True,
                              timeout=180, text=True)


def _bar_lengths(png: Path) -> list[tuple[int, int]]:
    """(top pixel row, length in pixels) of each bar, top to bottom, below the legend.

    A bar's length is the span from its first to its last pixel of a bar colour (text and the target mark
    drawn over a bar do not shorten it), the widest span over the band of rows the bar covers.
    """
    _, _, rows = read_png(png.read_bytes())

    def near(p, c):
        return all(abs(a - b) <= 12 for a, b in zip(p, c, strict=True))

    found, current = [], None
    for y, row in enumerate(rows):
        xs = [x for x, p in enumerate(row) if near(p, BLUE) or near(p, RED)]
        length = xs[-1] - xs[0] + 1 if xs else 0
        if length and current is None:
            current = [y, length]
        elif length and current is not None:
            current[1] = max(current[1], length)
        elif current is not None:
            found.append(tuple(current))
            current = None
    return found[1:]  # the first band is the legend's colour swatches


@pytest.mark.skipif(BROWSER is None and not os.environ.get("CI"), reason="no headless Chromium installed")
def test_chart_in_headless_chromium(page, tmp_path):
    assert BROWSER, "CI installs Debian's chromium: the chart must be checked in a real browser there"
    dom = _browser("--dump-dom", page.as_uri()).stdout
    for label in ("attnprep progress", "softmax", "flash", "5:00", "20:00", "10:00:00, off the scale", "0:04",
                  "not passed yet", "minutes to the first passing check"):
        assert label in dom, label
    lengths = {}
    for width in (1000, 640):
        shot = tmp_path / f"shot-{width}.png"
        _browser(f"--screenshot={shot}", f"--window-size={width},760", page.as_uri())
        bars = _bar_lengths(shot)
        assert len(bars) == len(FIRST_PASS), bars  # softmax, causal, mha, kvcache, xent, in catalogue order
        lengths[width] = [length for _, length in bars]
    for width, (softmax, causal, mha, kvcache, xent) in lengths.items():
        # Lengths follow the values (5, 10, 20 minutes), within anti-aliasing.
        assert abs(causal - 2 * softmax) <= 3 and abs(mha - 4 * softmax) <= 4, (width, lengths[width])
        assert kvcache > mha and abs(kvcache - 10 * softmax) <= 8, (width, lengths[width])  # capped at 50 min
        assert 1 <= xent <= 6, (width, lengths[width])  # 4 seconds: a sliver, still there
    # The chart follows the page: narrower window, proportionally shorter bars.
    assert lengths[640][3] < lengths[1000][3] * 0.75
