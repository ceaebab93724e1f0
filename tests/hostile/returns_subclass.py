# attnprep: softmax
# expect-status: pass
# a correct answer in an ndarray subclass that lies about itself
import numpy as np


def softmax(z, axis=-1):
    z = np.asarray(z, dtype=np.float64)
    e = np.exp(z - z.max(axis=axis, keepdims=True))
    return (e / e.sum(axis=axis, keepdims=True)).view(Liar)


class Liar(np.ndarray):
    def view(self, *a, **k):
        raise RuntimeError("no")

    def __eq__(self, other):
        return True
