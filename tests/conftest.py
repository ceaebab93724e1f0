import sys
from pathlib import Path

# tests/ holds shared helpers (corpus.py) imported by the test modules.
sys.path.insert(0, str(Path(__file__).parent))
