"""The `attnprep` entry point: a check's worker starts booting before the command line is parsed."""

import os
import sys


def main() -> None:
    """Console-script entry point: cli.main, with `check`'s worker started first (see runner.start_early)."""
    from attnprep import CHECK_TIMEOUT_S, ONE_BLAS_THREAD

    os.environ.update(ONE_BLAS_THREAD)  # before anything imports NumPy, the worker included
    if sys.argv[1:2] == ["check"] and not {"-h", "--help"} & set(sys.argv[2:]):
        from attnprep import runner

        runner.start_early(runner.cpu_limit(CHECK_TIMEOUT_S))
    from attnprep.cli import main as cli_main

    cli_main()
