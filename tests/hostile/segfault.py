# attnprep: softmax
# expect-status: fail
# expect-message-any: SIGSEGV
import ctypes


def softmax(z, axis=-1):
    return ctypes.string_at(0)
