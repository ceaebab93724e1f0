# attnprep: softmax
# expect-status: fail
# expect-message-any: malformed reply
# A reply nested 200,000 levels deep, written straight into the pipe: the parent's JSON reader must not
# raise RecursionError out of attnprep (exit 3).
import os
import struct
import sys


def softmax(z, axis=-1):
    depth = 200_000
    head = (b'{"ok": true, "kind": "result", "elapsed": 0.0, "$blobs": 0, "result": ' + b"[" * depth
            + b"]" * depth + b"}")
    os.write(int(sys.argv[2]), struct.pack(">I", len(head)) + head)
    os._exit(0)
