# attnprep: swiglu
# expect: pass
# style: silu as a * exp(log_sigmoid(a)), log-sigmoid as a hand-written two-term logsumexp (max subtracted), keyword call
import numpy as np


def _log_sigmoid(a):
    # log sigmoid(a) = -log(1 + exp(-a)) = -logsumexp([0, -a]), max subtracted first.
    m = np.maximum(0.0, -a)
    return -(m + np.log(np.exp(-m) + np.exp(-a - m)))


def _silu(a):
    return a * np.exp(_log_sigmoid(a))


def swiglu(x, W_gate, W_up, W_down):
    gate = _silu(a=np.matmul(x, W_gate))
    return np.matmul(gate * np.matmul(x, W_up), W_down)
