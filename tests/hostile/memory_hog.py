# attnprep: softmax
# expect-status: fail|timeout
# (the memory limit ends every call; on a slow machine touching 2 GiB can outlast the call's share of time)
import numpy as np

blocks = []


def softmax(z, axis=-1):
    while True:
        blocks.append(np.ones(2**27))  # 1 GiB each, touched
