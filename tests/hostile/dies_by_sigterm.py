# attnprep: softmax
# expect-status: fail
# expect-message-any: killed by SIGTERM
# The death is read before the worker is killed: this one is reported as SIGTERM, not SIGKILL.
import os
import signal


def softmax(z, axis=-1):
    os.kill(os.getpid(), signal.SIGTERM)
