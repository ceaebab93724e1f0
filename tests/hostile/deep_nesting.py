# attnprep: softmax
# expect-status: fail
# expect-message-any: malformed reply
# A reply nested 200,000 levels deep, written straight into the pipe: the parent's JSON reader must not
# raise RecursionError out of attnprep (exit 3).
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
    depth = 200_000
    head = (b'{"ok": true, "kind": "result", "elapsed": 0.0, "$blobs": 0, "result": ' + b"[" * depth
            + b"]" * depth + b"}")
    os.write(_reply_fd(), struct.pack(">I", len(head)) + head)
    os._exit(0)
