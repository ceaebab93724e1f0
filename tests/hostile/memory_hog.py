# attnprep: softmax
# expect-status: fail
import numpy as np

blocks = []


def softmax(z, axis=-1):
    while True:
        blocks.append(np.ones(2**27))  # 1 GiB each, touched
