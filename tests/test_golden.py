"""Golden tests of the report: the exact JSON `check --json` prints for known files.

Timings are normalised away. After an intended change of messages, regenerate
with `ATTNPREP_UPDATE_GOLDEN=1 python -m pytest tests/test_golden.py` and read
the diff before committing it.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
GOLDEN = HERE / "golden"
CASES = {
    "softmax-global-max": HERE / "corpus/softmax/wrong_global_max.py",
    "softmax-reference": HERE.parent / "solutions/softmax.py",
    "softmax-syntax-error": HERE / "hostile/syntax_error.py",
    "softmax-missing-function": HERE / "hostile/missing_function.py",
}


def normalised(report: dict) -> dict:
    report = dict(report, elapsed_s=0.0, file=Path(report["file"]).name)
    report["invariants"] = [dict(i, elapsed_s=0.0) for i in report["invariants"]]
    return report


@pytest.mark.parametrize("name", sorted(CASES))
def test_report_matches_golden(name, tmp_path):
    proc = subprocess.run([sys.executable, "-m", "attnprep", "check", str(CASES[name]), "--json",
                           "--exercise", "softmax"], capture_output=True, text=True,
                          env={**os.environ, "ATTNPREP_HOME": str(tmp_path)}, timeout=60)
    got = normalised(json.loads(proc.stdout))
    path = GOLDEN / f"{name}.json"
    if os.environ.get("ATTNPREP_UPDATE_GOLDEN"):
        path.write_text(json.dumps(got, indent=2, sort_keys=True) + "\n")
    assert got == json.loads(path.read_text())
