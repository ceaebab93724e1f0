# attnprep: softmax
# expect-status: error
# expect-message: malformed reply
# A `loaded` reply whose fields have the wrong types, written straight into the reply pipe.
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

head = json.dumps({"ok": True, "kind": "loaded", "missing": 5, "$blobs": 0}).encode()
os.write(_reply_fd(), struct.pack(">I", len(head)) + head)
os._exit(0)
