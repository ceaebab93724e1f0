# attnprep: flash
# expect: pass
# style: pads T up to a multiple of block_size and masks the padding (and the future) with -1e9
import numpy as np


def flash_attention(q, k, v, block_size=64, causal=False):
    T, d = q.shape
    n = -(-T // block_size) * block_size          # T rounded up
    pad = n - T
    qp = np.pad(q, ((0, pad), (0, 0))) / np.sqrt(d)
    kp = np.pad(k, ((0, pad), (0, 0)))
    vp = np.pad(v, ((0, pad), (0, 0)))
    pos = np.arange(n)
    out = np.zeros((n, v.shape[1]))
    for i in range(0, n, block_size):
        qi = qp[i:i + block_size]
        run_max = np.full((block_size, 1), -np.inf)
        run_sum = np.zeros((block_size, 1))
        run_out = np.zeros((block_size, v.shape[1]))
        for j in range(0, n, block_size):
            s = qi @ kp[j:j + block_size].T
            blocked = pos[None, j:j + block_size] >= T                    # padded keys
            if causal:
                blocked = blocked | (pos[None, j:j + block_size] > pos[i:i + block_size, None])
            s = np.where(blocked, -1e9, s)
            new_max = np.maximum(run_max, s.max(axis=1, keepdims=True))
            p = np.exp(s - new_max)
            factor = np.exp(run_max - new_max)
            run_sum = run_sum * factor + p.sum(axis=1, keepdims=True)
            run_out = run_out * factor + p @ vp[j:j + block_size]
            run_max = new_max
        out[i:i + block_size] = run_out / run_sum
    return out[:T]
