"""Named exit codes of docs/cli.md (kept apart so the CLI imports nothing heavier)."""

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    NOT_PASSED = 1  # `check` ran and the solution did not pass
    USAGE = 2
    INTERNAL = 3
