"""Allow `python -m attnprep`."""

from attnprep.cli import main

main()
