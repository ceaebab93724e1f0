# attnprep: softmax
# expect: pass
# style: written by hand, with scipy.special.softmax and torch.softmax named in its comments and torch imported
#        optionally (try/except ImportError): a NumPy file, and no library shortcut
"""Same as scipy.special.softmax(z, axis) or torch.softmax(t, dim), written by hand."""
import numpy as np

try:  # only used in my own local tests, never called here
    import torch  # noqa: F401
except ImportError:
    torch = None

# from scipy.special import softmax as _ref   <- what I compared against at home


def softmax(z, axis=-1):
    # scipy.special.softmax subtracts the max too
    m = np.max(z, axis=axis, keepdims=True)
    e = np.exp(z - m)
    return e / np.sum(e, axis=axis, keepdims=True)
