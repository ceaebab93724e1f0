"""`check --format` and `grade --junit`: what attnprep writes, parsed against each format's published description.

- Exercism: the test-runner interface, `results.json` version 3 (top level `version`, `status`, `message`,
  `tests`; per test `name`, `status`, `message`, `test_code`, `task_id`, `output` of at most 500 characters).
- GitHub Actions: workflow commands `::command prop=value,...::message`, with %, CR and LF percent-encoded in
  the message and in properties, and : and , too in properties.
- GitHub Classroom: the result an autograding runner hands the grading reporter (`version`, `status`,
  `max_score`, `tests` with `name`, `status`, `message`, `score`), which the reporter reads base64-encoded and
  totals as the sum of the tests' scores out of `max_score`.
- JUnit XML: the schema CI tools read (Surefire's junit-10.xsd, as pytest's own output is tested against):
  the required attributes, the allowed children, time as digits with at most three decimals, and counts that
  agree with the test cases.
"""

import base64
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from attnprep import catalogue, formats
from attnprep.engine import invariant_list
from attnprep.report import InvariantResult, Report
from attnprep.stubs import render_stub

CORPUS = Path(__file__).parent / "corpus"
RAISES = '# attnprep: softmax\ndef softmax(z, axis=-1):\n    raise ValueError("50%: a, b\\r\\nnext \\x00\\x1b[0m")\n'


def attnprep(*args, home, check=None):
    env = {**os.environ, "ATTNPREP_HOME": str(home)}
    proc = subprocess.run([sys.executable, "-m", "attnprep", *args], capture_output=True, text=True, env=env,
                          timeout=120)
    assert "Traceback" not in proc.stderr, proc.stderr
    if check is not None:
        assert proc.returncode == check, (proc.returncode, proc.stdout, proc.stderr)
    return proc


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("files")
    (folder / "right.py").write_text(catalogue.get("softmax").solution_path.read_text())
    (folder / "wrong.py").write_text((CORPUS / "softmax" / "wrong_global_max.py").read_text())
    (folder / "syntax.py").write_text("# attnprep: softmax\ndef softmax(z, axis=-1)\n    return z\n")
    (folder / "raises.py").write_text(RAISES)
    (folder / "stub.py").write_text(render_stub(catalogue.get("softmax")))
    return folder


@pytest.fixture(scope="module")
def reports(files, tmp_path_factory):
    """Each file's attnprep JSON report, to hold every other format to."""
    home = tmp_path_factory.mktemp("home")
    out = {}
    for path in sorted(files.glob("*.py")):
        proc = attnprep("check", str(path), "--json", home=home)
        out[path.stem] = json.loads(proc.stdout)
    return out


def formatted(files, name, fmt, home):
    proc = attnprep("check", str(files / f"{name}.py"), "--format", fmt, home=home)
    assert proc.returncode == (0 if name == "right" else 1), proc.stderr
    return proc.stdout


# -- Exercism -------------------------------------------------------------------------------------

def validate_exercism(data: dict) -> None:
    assert set(data) <= {"version", "status", "message", "tests"}
    assert data["version"] == 3 and data["status"] in ("pass", "fail", "error")
    if data["status"] == "error":
        assert isinstance(data["message"], str) and data["message"] and len(data["message"]) <= 65535
    else:
        assert data.get("message") is None  # "when the status is not error, set it to null or omit it"
        assert isinstance(data["tests"], list) and data["tests"]
    for test in data.get("tests", []):
        assert set(test) <= {"name", "test_code", "status", "message", "output", "task_id"}
        assert isinstance(test["name"], str) and test["name"]
        assert test["status"] in ("pass", "fail", "error")
        assert test.get("message") is None or isinstance(test["message"], str)
        assert isinstance(test.get("test_code", ""), str)
        assert "task_id" not in test or isinstance(test["task_id"], int)
        assert "output" not in test or len(test["output"]) <= 500
        if test["status"] != "pass":
            assert test["message"], test
    statuses = {t["status"] for t in data.get("tests", [])}
    if data["status"] == "pass":
        assert statuses == {"pass"}
    if data["status"] == "fail":  # "at least one test has the status fail or error"
        assert statuses & {"fail", "error"}


@pytest.mark.parametrize("name", ["right", "wrong", "syntax", "raises", "stub"])
def test_exercism_results_json_v3(files, reports, tmp_path, name):
    data = json.loads(formatted(files, name, "exercism", tmp_path))
    validate_exercism(data)
    report = reports[name]
    if report["status"] == "error":
        assert data["status"] == "error" and report["message"] in data["message"]
        return
    # One test per invariant, in report order (the spec: the order of the tests file).
    assert [t["name"] for t in data["tests"]] == [i["id"] for i in report["invariants"]]
    for test, inv in zip(data["tests"], report["invariants"], strict=True):
        assert test["test_code"] == inv["description"]
        if inv["status"] in ("skipped", "not-judged"):
            assert test["status"] == "error" and test["message"].startswith("not judged")
        elif inv["passed"]:
            assert test["status"] == "pass" and test["message"] is None
        else:
            assert inv["message"] in test["message"]
    if report["mistakes"]:
        first = next(t for t in data["tests"] if t["status"] != "pass")
        assert f"likely mistake: {report['mistakes'][0]['id']}" in first["message"]


# -- GitHub Actions workflow commands ---------------------------------------------------------------

COMMAND = re.compile(r"^::(?P<cmd>error|warning|notice)(?: (?P<props>[^:]*))?::(?P<msg>.*)$")


def unescape(text: str) -> str:
    return text.replace("%0D", "\r").replace("%0A", "\n").replace("%3A", ":").replace("%2C", ",").replace("%25", "%")


def parse_commands(text: str) -> list[tuple[str, dict, str]]:
    commands = []
    for line in text.splitlines():
        match = COMMAND.match(line)
        if not match:
            assert not line.startswith("::"), f"malformed workflow command: {line!r}"
            continue
        props = {}
        for pair in (match["props"] or "").split(","):
            key, _, value = pair.partition("=")
            assert key in ("title", "file", "line", "col", "endLine", "endColumn"), key
            assert not re.search(r"[:,\r\n]", value)  # escaped as the syntax requires
            props[key] = unescape(value)
        assert not re.search(r"[\r\n]", match["msg"]) and not re.search(r"%(?!25|0D|0A)", match["msg"])
        commands.append((match["cmd"], props, unescape(match["msg"])))
    return commands


@pytest.mark.parametrize("name", ["right", "wrong", "syntax", "raises"])
def test_github_workflow_commands(files, reports, tmp_path, name):
    text = formatted(files, name, "github", tmp_path)
    commands = parse_commands(text)
    report = reports[name]
    errors = [(p, m) for c, p, m in commands if c == "error"]
    if report["status"] == "error":
        assert len(errors) == 1 and errors[0][1] == report["message"]
        return
    broken = [i for i in report["invariants"] if i["status"] in ("fail", "error", "timeout")]
    assert len(errors) == len(broken)  # one ::error per failed invariant, nothing for a pass
    for (props, message), inv in zip(errors, broken, strict=True):
        assert props["file"] == str(files / f"{name}.py")
        assert props["title"] == f"attnprep softmax: {inv['id']} ({inv['status']})"
        assert message == inv["message"]  # the round trip through the escaping is exact
    warnings = [m for c, p, m in commands if c == "warning"]
    assert len(warnings) == sum(i["status"] in ("skipped", "not-judged") for i in report["invariants"])
    notices = [p["title"] for c, p, m in commands if c == "notice"]
    assert notices == [f"attnprep softmax: likely mistake {m['id']}" for m in report["mistakes"]]


def test_github_annotations_are_placed_relative_to_the_repository(monkeypatch, tmp_path):
    report = Report("softmax", str(tmp_path / "src" / "softmax.py"), "fail",
                    invariants=[InvariantResult("shape", "d", "fail", "wrong")])
    monkeypatch.setenv("GITHUB_WORKSPACE", str(tmp_path))
    ((_, props, _),) = [c for c in parse_commands("\n".join(formats.github(report))) if c[0] == "error"]
    assert props["file"] == "src/softmax.py"
    monkeypatch.setenv("GITHUB_WORKSPACE", str(tmp_path / "elsewhere"))
    ((_, props, _),) = [c for c in parse_commands("\n".join(formats.github(report))) if c[0] == "error"]
    assert props["file"] == report.file


def test_github_escaping_of_every_special_character():
    line = formats.workflow_command("error", "100% done\r\nnext: a, b", title="t: x, y%", file="a,b.py")
    assert line == "::error title=t%3A x%2C y%25,file=a%2Cb.py::100%25 done%0D%0Anext: a, b"
    ((cmd, props, message),) = parse_commands(line)
    assert message == "100% done\r\nnext: a, b" and props == {"title": "t: x, y%", "file": "a,b.py"}


# -- GitHub Classroom -----------------------------------------------------------------------------

def validate_classroom(data: dict) -> None:
    assert data["version"] == 1 and data["status"] in ("pass", "fail", "error")
    assert isinstance(data["max_score"], int) and data["max_score"] > 0
    assert isinstance(data["tests"], list) and data["tests"]
    for test in data["tests"]:
        assert isinstance(test["name"], str) and test["status"] in ("pass", "fail", "error")
        assert test["message"] is None or isinstance(test["message"], str)
        assert isinstance(test["score"], (int, float)) and test["score"] >= 0
    # The reporter totals the tests' scores out of max_score, and weights the share of passed tests by it.
    total = sum(t["score"] for t in data["tests"])
    assert total <= data["max_score"]
    if data["status"] == "pass":
        assert total == data["max_score"]


@pytest.mark.parametrize("name", ["right", "wrong", "syntax", "raises"])
def test_classroom_result(files, reports, tmp_path, name):
    text = formatted(files, name, "classroom", tmp_path)
    # As the grading reporter reads it: base64 of the JSON in an environment variable.
    data = json.loads(base64.b64decode(base64.b64encode(text.encode())).decode("utf-8"))
    validate_classroom(data)
    report = reports[name]
    assert data["max_score"] == (len(report["invariants"]) or len(invariant_list(catalogue.get("softmax"))))
    if report["status"] == "error":
        assert data["status"] == "error" and data["tests"][0]["message"] == report["message"]
        return
    assert sum(t["score"] for t in data["tests"]) == sum(i["passed"] for i in report["invariants"])
    for test, inv in zip(data["tests"], report["invariants"], strict=True):
        assert test["name"] == inv["id"] and (test["status"] == "pass") == inv["passed"]


# -- JUnit XML ------------------------------------------------------------------------------------

SUREFIRE_TIME = re.compile(r"(([0-9]{0,3},)*[0-9]{3}|[0-9]{0,3})*(\.[0-9]{0,3})?")


def validate_junit(text: str) -> ET.Element:
    root = ET.fromstring(text.encode("utf-8"))
    assert root.tag == "testsuites"
    for key in ("tests", "failures", "errors", "time"):
        assert key in root.attrib
    totals = dict.fromkeys(("tests", "failures", "errors", "skipped"), 0)
    for suite in root:
        assert suite.tag == "testsuite"
        for key in ("name", "tests", "failures", "errors"):  # required by the schema
            assert key in suite.attrib, key
        assert SUREFIRE_TIME.fullmatch(suite.get("time", "0"))
        counts = dict.fromkeys(totals, 0)
        for child in suite:
            assert child.tag in ("testsuite", "properties", "testcase", "system-out", "system-err")
            if child.tag == "properties":
                assert all(p.tag == "property" and {"name", "value"} <= set(p.attrib) for p in child)
            if child.tag != "testcase":
                continue
            assert child.get("name") and SUREFIRE_TIME.fullmatch(child.get("time", "0"))
            kinds = [c.tag for c in child]
            assert set(kinds) <= {"skipped", "error", "failure", "system-out", "system-err"}
            counts["tests"] += 1
            counts["failures"] += "failure" in kinds
            counts["errors"] += "error" in kinds
            counts["skipped"] += "skipped" in kinds
        for key, n in counts.items():
            assert int(suite.get(key, 0)) == n, (key, suite.get("name"))
            totals[key] += n
    for key, n in totals.items():
        assert int(root.get(key, 0)) == n
    return root


def test_grade_junit(files, reports, tmp_path):
    out = tmp_path / "class.xml"
    attnprep("grade", str(files), "-e", "softmax", "--junit", str(out), "--timeout", "10", home=tmp_path, check=1)
    root = validate_junit(out.read_text(encoding="utf-8"))
    suites = {s.get("name"): s for s in root}
    assert sorted(suites) == sorted(f"{n}.py" for n in reports)  # a test suite per file
    for name, report in reports.items():
        suite = suites[f"{name}.py"]
        cases = suite.findall("testcase")
        if report["status"] == "error":
            assert [c.get("name") for c in cases] == ["load"]
            assert cases[0].find("error").get("message") == report["message"]
            continue
        assert [c.get("name") for c in cases] == [i["id"] for i in report["invariants"]]  # a case per invariant
        for case, inv in zip(cases, report["invariants"], strict=True):
            if inv["status"] in ("skipped", "not-judged"):
                assert case.find("skipped") is not None and case.find("failure") is None
            elif inv["passed"]:
                assert len(case) == 0
            else:
                failure = case.find("failure")
                assert failure.get("type") == inv["status"]
                # XML 1.0 cannot hold NUL or ESC: they are replaced, everything else is kept
                assert failure.get("message") == re.sub("[\x00\x1b]", "\ufffd", inv["message"])
        mistakes = [p.get("value") for p in suite.iter("property") if p.get("name") == "likely-mistake"]
        assert mistakes == [f"{m['id']}: {m['message']}" for m in report["mistakes"]]


def test_junit_of_unjudged_and_skipped_invariants_is_never_a_failure():
    report = Report("softmax", "x.py", "timeout", invariants=[
        InvariantResult("shape", "d", "pass"), InvariantResult("stable", "d", "not-judged", "not judged: no call"),
        InvariantResult("axis", "d", "skipped", "no time left"), InvariantResult("sum", "d", "timeout", "slow")])
    root = validate_junit(formats.junit([report]))
    suite = root.find("testsuite")
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("4", "1", "2")


def test_check_format_usage_errors(tmp_path, files):
    bad = attnprep("check", str(files / "right.py"), "--format", "xml", home=tmp_path, check=2)
    assert "unknown report format" in bad.stderr and "exercism" in bad.stderr
    both = attnprep("check", str(files / "right.py"), "--json", "--format", "github", home=tmp_path, check=2)
    assert "only one" in both.stderr
    same = attnprep("check", str(files / "right.py"), "--json", "--format", "json", home=tmp_path, check=0)
    assert json.loads(same.stdout)["status"] == "pass"
