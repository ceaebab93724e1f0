"""The example GitHub workflows of docs/workflows/: their shell steps run here as the runner would run them.

Each `run:` step runs in bash with `-eo pipefail` (GitHub's default shell), with the workflow's `env`, the
expressions `${{ ... }}` replaced by what GitHub would put there, `pip install` and `apt-get install` left out (attnprep
and bubblewrap are installed), and the artifacts passed from job to job as files.
"""

import base64
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from attnprep import catalogue
from attnprep.engine import invariant_list

ROOT = Path(__file__).parent.parent
WORKFLOWS = ROOT / "docs" / "workflows"
CORPUS = Path(__file__).parent / "corpus"


def jobs(path: Path) -> dict[str, list[str]]:
    """The `run:` commands of each job, in order (the examples keep every command on one line)."""
    found: dict[str, list[str]] = {}
    job = None
    in_jobs = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("jobs:"):
            in_jobs = True
        elif in_jobs and re.match(r"^  [\w-]+:$", line):
            job = line.strip()[:-1]
            found[job] = []
        elif job and (match := re.match(r"^\s+(?:- )?run: (.+)$", line)):
            found[job].append(match.group(1))
    return found


def workflow_env(path: Path) -> dict[str, str]:
    text = path.read_text(encoding="utf-8")
    block = re.search(r"^env:\n((?:  .*\n)+)", text, re.M).group(1)
    return {k: v for k, v in re.findall(r'^  (\w+): "([^"]*)"', block, re.M)}


def _env(extra: dict[str, str]) -> dict[str, str]:
    """The environment with this Python's `attnprep` first on PATH, as after `pip install` on a runner."""
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    return {**os.environ, **extra, "PATH": path}


def run_step(command: str, cwd: Path, env: dict[str, str], expressions: dict[str, str]) -> None:
    for expr, value in expressions.items():
        command = command.replace("${{ " + expr + " }}", value)
    assert "${{" not in command or "steps." in command, command
    if command.startswith(("pip install", "sudo apt-get install")):  # installed here already
        return
    proc = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", command], cwd=cwd,
                          env=_env(env), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, (command, proc.stdout, proc.stderr)


def test_grade_class_workflow_shards_and_merges_like_one_machine(tmp_path):
    path = WORKFLOWS / "grade-class.yml"
    env = {**workflow_env(path), "ATTNPREP_HOME": str(tmp_path / "home")}
    steps = jobs(path)
    shards = int(env["SHARDS"])
    assert re.search(r"shard: \[" + ", ".join(str(k) for k in range(1, shards + 1)) + r"\]", path.read_text())
    repo = tmp_path / "repo"
    (repo / "submissions").mkdir(parents=True)
    for i, src in enumerate(sorted((CORPUS / "softmax").glob("*.py"))[:9]):
        shutil.copy(src, repo / "submissions" / f"student{i}.py")
    artifacts = tmp_path / "artifacts"
    artifacts.mkdir()
    for k in range(1, shards + 1):  # one runner per matrix entry, each with a fresh checkout
        runner = tmp_path / f"runner{k}"
        shutil.copytree(repo, runner)
        for command in steps["grade"]:
            run_step(command, runner, env, {"inputs.exercise": "softmax", "matrix.shard": str(k)})
        shutil.copy(runner / f"shard-{k}.json", artifacts)
    merger = tmp_path / "merge"
    shutil.copytree(artifacts, merger)  # download-artifact with merge-multiple: every shard's file in one folder
    for command in steps["merge"]:
        run_step(command, merger, env, {})
    merged = json.loads((merger / "class.json").read_text())
    whole = subprocess.run(["attnprep", "grade", "submissions", "-e", "softmax", "--json", str(tmp_path / "one.json")],
                           cwd=repo, env=_env(env), capture_output=True, text=True, timeout=300)
    assert whole.returncode in (0, 1), whole.stderr
    one = json.loads((tmp_path / "one.json").read_text())

    def strip(value):
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k != "elapsed_s"}
        return [strip(v) for v in value] if isinstance(value, list) else value

    assert [Path(r["file"]).name for r in merged["results"]] == [Path(r["file"]).name for r in one["results"]]
    assert strip(merged["results"]) == strip(one["results"])
    assert (merger / "class.csv").is_file() and (merger / "class.xml").is_file()


def test_classroom_workflow_gives_the_reporter_a_result(tmp_path):
    path = WORKFLOWS / "classroom.yml"
    env = {**workflow_env(path), "ATTNPREP_HOME": str(tmp_path / "home"), "GITHUB_OUTPUT": str(tmp_path / "out")}
    repo = tmp_path / "student"
    repo.mkdir()
    shutil.copy(CORPUS / "mha" / sorted(p.name for p in (CORPUS / "mha").glob("wrong_*.py"))[0], repo / env["FILE"])
    (steps,) = jobs(path).values()
    for command in steps:
        run_step(command, repo, env, {})
    outputs = dict(line.split("=", 1) for line in (tmp_path / "out").read_text().splitlines())
    # As autograding-grading-reporter reads it: the runner's result, base64 in ATTNPREP_RESULTS.
    assert "ATTNPREP_RESULTS" in path.read_text() and "runners: attnprep" in path.read_text()
    result = json.loads(base64.b64decode(outputs["result"]))
    assert result["status"] == "fail" and result["max_score"] == len(result["tests"])
    assert {t["name"] for t in result["tests"]} <= {i for i, _ in invariant_list(catalogue.get(env["EXERCISE"]))}
