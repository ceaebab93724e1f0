# attnprep: softmax
# expect-status: fail
# expect-message-any: exited with code 3
import os


def softmax(z, axis=-1):
    os._exit(3)
