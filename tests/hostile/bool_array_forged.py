# attnprep: softmax
# expect-status: fail
# expect-message-any: too large
# A 48 MiB bool array written straight into the pipe, past the worker's own size check: the parent
# refuses it before converting it (384 MiB as float64).
import io
import json
import os
import struct

import numpy as np


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
    buf = io.BytesIO()
    np.save(buf, np.zeros(48 * 2**20, dtype=bool))
    blob = buf.getvalue()
    head = json.dumps({"ok": True, "kind": "result", "elapsed": 0.0, "$blobs": 1, "result": {"$nd": 0}}).encode()
    os.write(_reply_fd(), struct.pack(">I", len(head)) + head + struct.pack(">Q", len(blob)) + blob)
    os._exit(0)
