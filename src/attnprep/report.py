"""Results as data: one invariant's outcome, one file's report, and its exit code."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from attnprep.exitcodes import ExitCode

REPORT_VERSION = 1


# Status of one invariant; `pass` is the only one that counts as passed. `not-judged`: the check could
# compare nothing (every call it made raised, or it had to pass over calls that broke).
INVARIANT_STATUSES = ("pass", "fail", "error", "timeout", "skipped", "not-judged")
# Status of a whole file.
REPORT_STATUSES = ("pass", "fail", "error", "timeout")


@dataclass
class InvariantResult:
    id: str
    description: str
    status: str
    message: str | None = None
    elapsed_s: float = 0.0

    @property
    def passed(self) -> bool:
        return self.status == "pass"

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "description": self.description, "status": self.status,
                "passed": self.passed, "message": self.message,
                "elapsed_s": round(self.elapsed_s, 4)}


@dataclass
class Report:
    exercise: str
    file: str
    status: str
    message: str | None = None
    elapsed_s: float = 0.0
    seed: int = 0
    invariants: list[InvariantResult] = field(default_factory=list)
    mistakes: list[dict[str, str]] = field(default_factory=list)
    clock: dict[str, Any] | None = None
    output: str = ""
    precision: str = "float64"  # the precision the results were judged at (attnprep.precision)

    @staticmethod
    def status_of(results: list[InvariantResult]) -> str:
        """The file's status from its invariants: timeout beats fail beats pass."""
        statuses = {r.status for r in results}
        if statuses & {"timeout", "skipped"}:
            return "timeout"
        if statuses - {"pass"}:
            return "fail"
        return "pass"

    @property
    def passed(self) -> bool:
        return self.status == "pass"

    @property
    def exit_code(self) -> ExitCode:
        return ExitCode.OK if self.passed else ExitCode.NOT_PASSED

    @property
    def failed_ids(self) -> list[str]:
        """Invariants that were judged and broken (fail, error, timeout): not those skipped or not judged."""
        return [r.id for r in self.invariants if r.status in ("fail", "error", "timeout")]

    @property
    def not_passed_ids(self) -> list[str]:
        return [r.id for r in self.invariants if not r.passed]

    def counts(self) -> dict[str, int]:
        """How many invariants passed, failed (fail or error), timed out, were skipped or not judged."""
        groups = {"passed": ("pass",), "failed": ("fail", "error"), "timed out": ("timeout",),
                  "not judged": ("not-judged",), "skipped": ("skipped",)}
        return {name: sum(r.status in statuses for r in self.invariants) for name, statuses in groups.items()}

    def summary(self) -> str:
        """'9 passed, 3 failed, 1 not judged': the groups that are not empty (passed always)."""
        counts = self.counts()
        return ", ".join(f"{n} {name}" for name, n in counts.items() if n or name == "passed")

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": REPORT_VERSION, "exercise": self.exercise, "file": self.file,
            "status": self.status, "message": self.message,
            "elapsed_s": round(self.elapsed_s, 3), "seed": self.seed,
            "invariants": [r.to_dict() for r in self.invariants],
            "mistakes": [dict(m) for m in self.mistakes],
            "clock": self.clock, "output": self.output, "precision": self.precision,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Report:
        invariants = [InvariantResult(i["id"], i["description"], i["status"], i.get("message"),
                                      i.get("elapsed_s", 0.0)) for i in data["invariants"]]
        fields = {k: data[k] for k in ("exercise", "file", "status", "message", "elapsed_s",
                                        "seed", "mistakes", "clock", "precision") if k in data}
        return cls(**fields, invariants=invariants, output=data.get("output", ""))

