# attnprep: softmax
# expect-status: fail
# expect-message-any: SystemExit
import sys


def softmax(z, axis=-1):
    sys.exit(0)
