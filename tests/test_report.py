"""`attnprep report --html`: one self-contained page with a table and an inline SVG chart."""

import shutil
import subprocess
from html.parser import HTMLParser

import pytest
from typer.testing import CliRunner

from attnprep import catalogue, state
from attnprep.cli import app


class Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.rows, self.external = [], [], []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.append(tag)
        if tag == "tr" and "data-slug" in attrs:
            self.rows.append(attrs["data-slug"])
        for key in ("src", "href"):
            if key in attrs:
                self.external.append(attrs[key])
        if tag == "link" or (tag == "script"):
            self.external.append(tag)


@pytest.fixture
def page(tmp_path, monkeypatch):
    monkeypatch.setenv("ATTNPREP_HOME", str(tmp_path / "home"))
    state.record_start("softmax", tmp_path / "softmax.py")
    state.record_check("softmax", "fail", ["stable", "masked-entries"], {"elapsed_s": 100.0})
    state.record_check("softmax", "fail", ["stable"], {"elapsed_s": 200.0})
    state.record_check("softmax", "pass", [], {"elapsed_s": 900.0})  # over the 10-minute target
    out = tmp_path / "report.html"
    result = CliRunner().invoke(app, ["report", "--html", str(out)])
    assert result.exit_code == 0, result.output
    return out


def test_page_structure(page):
    text = page.read_text()
    parsed = Page()
    parsed.feed(text)
    assert parsed.rows == catalogue.slugs()
    assert "svg" in parsed.tags and parsed.tags.count("rect") == 1  # one exercise has a first pass
    assert parsed.external == []  # no scripts, styles or fonts from elsewhere
    assert "@import" not in text and "url(" not in text
    assert "stable (2)" in text and "masked-entries (1)" in text
    assert "15:00" in text and 'class="num over"' in text


def test_terminal_report(page):
    result = CliRunner().invoke(app, ["report"])
    assert result.exit_code == 0 and "stable (2)" in result.stdout


BROWSER = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


@pytest.mark.skipif(BROWSER is None, reason="no headless Chromium installed")
def test_page_renders_in_headless_chromium(page, tmp_path):
    shot = tmp_path / "shot.png"
    subprocess.run([BROWSER, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                    "--disable-component-update", "--disable-sync", "--no-first-run",
                    f"--user-data-dir={tmp_path / 'profile'}", f"--screenshot={shot}", "--window-size=1000,900",
                    page.as_uri()], capture_output=True, timeout=120)
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000
    dom = subprocess.run([BROWSER, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom",
                          f"--user-data-dir={tmp_path / 'profile2'}", page.as_uri()],
                         capture_output=True, timeout=120, text=True).stdout
    assert "attnprep progress" in dom and "<svg" in dom
