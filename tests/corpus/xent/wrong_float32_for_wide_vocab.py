# attnprep: xent
# expect: fail matches-reference
# must-pass: uniform mean bad-input confident
# mistake: drops to float32 past 50,000 classes "to save memory": logits near +-8,000 lose the digits
import numpy as np

BIG_VOCAB = 50_000


def cross_entropy(logits, targets):
    targets = np.asarray(targets)
    n, vocab = np.shape(logits)
    if np.any(targets < 0) or np.any(targets >= vocab):
        raise ValueError("every target must be a class index in 0..V-1")
    work = np.float32 if vocab > BIG_VOCAB else np.float64
    z = np.asarray(logits, dtype=work)
    shifted = z - z.max(axis=1, keepdims=True)
    log_norm = np.log(np.exp(shifted).sum(axis=1))
    per_row = log_norm - shifted[np.arange(n), targets]
    return float(per_row.astype(np.float64).mean())
