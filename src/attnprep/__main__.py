"""Allow `python -m attnprep`."""

from attnprep.launch import main

main()
