# attnprep: softmax
# expect-status: fail
# expect-message-any: too large
# 3 million tiny values in one reply: more than the parent decodes for one call.
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
    item = b"1,"
    head = (b'{"ok": true, "kind": "result", "elapsed": 0.0, "$blobs": 0, "result": [' + item * 3_000_000
            + b'1]}')
    os.write(_reply_fd(), struct.pack(">I", len(head)) + head)
    os._exit(0)
