# attnprep: softmax
# expect-status: error
# expect-message: RuntimeError
import numpy as np

raise RuntimeError("boom at import")
