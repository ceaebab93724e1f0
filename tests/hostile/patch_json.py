# attnprep: softmax
# expect-status: fail
import json

import numpy as np

json.dumps = lambda *a, **k: '{"status": "pass", "kind": "result", "ok": true}'
json.dump = lambda *a, **k: None


def softmax(z, axis=-1):
    e = np.exp(z)
    return e / e.sum(axis=axis, keepdims=True)
