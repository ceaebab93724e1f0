# attnprep: rope
# expect: fail matches-reference
# must-pass: shape position-zero norm-preserving layout direction frequencies relative bad-input input-unchanged
# mistake: precomputes the cos/sin tables for a context of 4,096 positions, as a model with max_seq_len = 4096 does,
#          and looks positions up modulo the table's length, so position 10,000 is rotated as position 1,808
# diagnosis: rope-positions-modulo-table
import numpy as np

MAX_SEQ_LEN = 4096
_TABLES = {}


def _tables(d, base):
    key = (d, float(base))
    if key not in _TABLES:
        inv_freq = base ** (-np.arange(0, d, 2) / d)
        angles = np.arange(MAX_SEQ_LEN)[:, None] * inv_freq
        _TABLES[key] = (np.cos(angles), np.sin(angles))
    return _TABLES[key]


def rope(x, positions, base=10000.0):
    x = np.asarray(x, dtype=np.float64)
    d = x.shape[-1]
    if d % 2:
        raise ValueError("d must be even")
    cos, sin = _tables(d, base)
    idx = np.asarray(positions) % MAX_SEQ_LEN
    cos, sin = cos[idx], sin[idx]
    x1, x2 = x[..., : d // 2], x[..., d // 2:]
    return np.concatenate([x1 * cos - x2 * sin, x1 * sin + x2 * cos], axis=-1)
