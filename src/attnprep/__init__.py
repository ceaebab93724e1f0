"""attnprep: an interview trainer for writing transformer attention from scratch."""

__version__ = "0.1.0"
