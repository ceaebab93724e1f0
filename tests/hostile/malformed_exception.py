# attnprep: softmax
# expect-status: fail
# expect-message-any: malformed reply
# An exception reply with a number where the class names go, and a line that is a string.
import json
import os
import struct


def _reply_fd():
    """The worker's reply pipe, found as a determined file would: the one writable pipe past stderr."""
    import fcntl
    import stat
    for name in sorted(os.listdir("/proc/self/fd"), key=int):
        fd = int(name)
        try:
            writable = fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE in (os.O_WRONLY, os.O_RDWR)
            if fd > 2 and writable and stat.S_ISFIFO(os.fstat(fd).st_mode):
                return fd
        except OSError:
            pass
    raise OSError("no reply pipe")


def softmax(z, axis=-1):
    head = json.dumps({"ok": False, "kind": "exception", "type": 7, "mro": 5, "message": None, "line": "x",
                       "$blobs": 0}).encode()
    os.write(_reply_fd(), struct.pack(">I", len(head)) + head)
    os._exit(0)
