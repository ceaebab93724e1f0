"""Reports in the formats other tools read: Exercism, GitHub Actions, GitHub Classroom and JUnit XML.

Each writer follows the format's published description (docs/teachers.md names
them): the Exercism test-runner `results.json` version 3, GitHub Actions
workflow commands, the result a GitHub Classroom autograding runner hands its
reporter, and JUnit XML as CI systems read it. An invariant is one test. What
was skipped or not judged is never reported as passed; where a format has no
such status (Exercism, Classroom) it is an error with a message saying why,
and it scores nothing.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from pathlib import Path

from attnprep.report import InvariantResult, Report

FORMATS = ("text", "json", "exercism", "github", "classroom")
# Statuses that say a check did not judge the solution (no time left; every call it made raised).
NOT_JUDGED = frozenset({"skipped", "not-judged"})


def is_failure(inv: InvariantResult) -> bool:
    """The solution broke this invariant (fail, error or timeout); skipped and not judged are not failures."""
    return not inv.passed and inv.status not in NOT_JUDGED


def failed(report: Report) -> list[InvariantResult]:
    return [i for i in report.invariants if is_failure(i)]


def not_judged(report: Report) -> list[InvariantResult]:
    return [i for i in report.invariants if i.status in NOT_JUDGED]


def _why_not_judged(inv: InvariantResult) -> str:
    reason = inv.message or ("no time was left for it" if inv.status == "skipped" else "it could compare nothing")
    return reason if reason.startswith("not judged") else f"not judged: {reason}"


# -- Exercism: test-runner results.json, version 3 ----------------------------------------------------

def exercism(report: Report) -> dict:
    """The Exercism test-runner results.json (version 3) of one report."""
    if report.status == "error" or not report.invariants:
        return {"version": 3, "status": "error",
                "message": report.message or "the file could not be graded: no invariant ran", "tests": []}
    tests = []
    for inv in report.invariants:
        status = "pass" if inv.passed else "fail" if inv.status == "fail" else "error"
        message = None if inv.passed else (_why_not_judged(inv) if inv.status in NOT_JUDGED else inv.message)
        # test_code is what the test runs; the hidden check's code is never shown, so it says what is checked.
        tests.append({"name": inv.id, "test_code": inv.description, "status": status, "message": message})
    first = next((t for t in tests if t["status"] != "pass"), None)
    if first is not None and report.mistakes:  # Exercism shows the first failure: the diagnosis goes with it
        named = "\n".join(f"likely mistake: {m['id']}: {m['message']}" for m in report.mistakes)
        first["message"] = f"{first['message'] or ''}\n{named}".strip()
    return {"version": 3, "status": "pass" if report.passed else "fail", "message": None, "tests": tests}


# -- GitHub Actions: workflow commands ----------------------------------------------------------------

def escape_data(text: str) -> str:
    """A workflow command's message: %, CR and LF percent-encoded."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A workflow command's property value: as a message, plus : and , encoded."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def workflow_command(command: str, message: str, **properties: str) -> str:
    props = ",".join(f"{k}={escape_property(v)}" for k, v in properties.items() if v)
    return f"::{command}{' ' + props if props else ''}::{escape_data(message)}"


def annotation_path(file: str) -> str:
    """The file as GitHub places annotations: relative to the repository (GITHUB_WORKSPACE) when inside it."""
    workspace = os.environ.get("GITHUB_WORKSPACE")
    path = Path(file)
    if workspace and path.is_absolute():
        try:
            return path.relative_to(Path(workspace)).as_posix()
        except ValueError:
            pass
    return file


def github(report: Report) -> list[str]:
    """Workflow commands: an ::error per failed invariant, a ::warning per one not judged, a ::notice per
    likely mistake, then a plain summary line."""
    where = {"file": annotation_path(report.file)}
    lines = []
    if report.status == "error" or not report.invariants:
        lines.append(workflow_command("error", report.message or "no invariant ran",
                                      title=f"attnprep {report.exercise}: could not grade the file", **where))
    for inv in report.invariants:
        if is_failure(inv):
            lines.append(workflow_command("error", inv.message or inv.description,
                                          title=f"attnprep {report.exercise}: {inv.id} ({inv.status})", **where))
        elif inv.status in NOT_JUDGED:
            lines.append(workflow_command("warning", _why_not_judged(inv),
                                          title=f"attnprep {report.exercise}: {inv.id} not judged", **where))
    for m in report.mistakes:
        lines.append(workflow_command("notice", m["message"],
                                      title=f"attnprep {report.exercise}: likely mistake {m['id']}", **where))
    lines.append(f"attnprep {report.exercise} {report.file}: {report.status}, {summary(report)}")
    return lines


def summary(report: Report) -> str:
    """`9 passed, 3 failed, 1 not judged`, or the error's message when no invariant ran."""
    return report.summary() if report.invariants else (report.message or "no invariant ran")


# -- GitHub Classroom: an autograding runner's result ---------------------------------------------------

def classroom(report: Report, invariant_count: int | None = None) -> dict:
    """The result a GitHub Classroom autograding runner passes to the grading reporter: one point per invariant.

    `invariant_count` is the exercise's number of invariants, for a file that could not be loaded (its report
    lists none): it still counts as 0 of that many points.
    """
    max_score = len(report.invariants) or invariant_count or 1
    if report.status == "error" or not report.invariants:
        test = {"name": "load", "status": "error", "message": report.message or "no invariant ran",
                "test_code": f"load {report.file}", "score": 0}
        return {"version": 1, "status": "error", "max_score": max_score, "tests": [test]}
    tests = []
    for inv in report.invariants:
        status = "pass" if inv.passed else "fail" if inv.status == "fail" else "error"
        message = None if inv.passed else (_why_not_judged(inv) if inv.status in NOT_JUDGED else inv.message)
        tests.append({"name": inv.id, "status": status, "message": message, "test_code": inv.description,
                      "score": 1 if inv.passed else 0})
    return {"version": 1, "status": "pass" if report.passed else "fail", "max_score": max_score, "tests": tests}


# -- JUnit XML --------------------------------------------------------------------------------------

# Characters XML 1.0 cannot hold, even escaped; a candidate's exception text may contain them. Compiled on first
# use: the class spans most of Unicode and takes 6 ms to compile, which every `check` would pay at start-up.
_NOT_XML = "[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]"


def _xml_text(text: str | None) -> str:
    return re.sub(_NOT_XML, "\ufffd", text or "")


def _seconds(value: float) -> str:
    return f"{max(value, 0.0):.3f}"


def junit(reports: Iterable[Report], name: str = "attnprep") -> str:
    """JUnit XML: a <testsuite> per file, a <testcase> per invariant, <failure> for what the solution broke,
    <skipped> for what was skipped or not judged, and an <error> test case for a file that could not be graded."""
    import xml.etree.ElementTree as ET

    reports = list(reports)
    root = ET.Element("testsuites", name=_xml_text(name))
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for report in reports:
        stem = Path(report.file).stem
        suite = ET.SubElement(root, "testsuite", name=_xml_text(Path(report.file).name))
        props = ET.SubElement(suite, "properties")
        for key, value in (("exercise", report.exercise), ("file", report.file), ("status", report.status),
                           ("seed", str(report.seed))):
            ET.SubElement(props, "property", name=key, value=_xml_text(value))
        for m in report.mistakes:
            ET.SubElement(props, "property", name="likely-mistake", value=_xml_text(f"{m['id']}: {m['message']}"))
        counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
        classname = _xml_text(f"{report.exercise}.{stem}")
        if report.status == "error" or not report.invariants:
            case = ET.SubElement(suite, "testcase", name="load", classname=classname,
                                 time=_seconds(report.elapsed_s))
            message = _xml_text(report.message or "no invariant ran")
            ET.SubElement(case, "error", type=report.status, message=message).text = message
            counts["tests"] += 1
            counts["errors"] += 1
        for inv in report.invariants:
            case = ET.SubElement(suite, "testcase", name=_xml_text(inv.id), classname=classname,
                                 time=_seconds(inv.elapsed_s))
            counts["tests"] += 1
            if inv.status in NOT_JUDGED:
                ET.SubElement(case, "skipped", type=inv.status, message=_xml_text(_why_not_judged(inv)))
                counts["skipped"] += 1
            elif not inv.passed:
                message = _xml_text(inv.message or inv.description)
                ET.SubElement(case, "failure", type=inv.status, message=message).text = message
                counts["failures"] += 1
        if report.output:
            ET.SubElement(suite, "system-out").text = _xml_text(report.output)
        for key, value in counts.items():
            suite.set(key, str(value))
            totals[key] += value
        suite.set("time", _seconds(report.elapsed_s))
    for key, value in totals.items():
        root.set(key, str(value))
    root.set("time", _seconds(sum(r.elapsed_s for r in reports)))
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def dumps(payload: dict) -> str:
    return json.dumps(payload, indent=2) + "\n"
