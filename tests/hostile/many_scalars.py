# attnprep: softmax
# expect-status: fail
# expect-message-any: too large
# 3 million tiny values in one reply: more than the parent decodes for one call.
import os
import struct
import sys


def softmax(z, axis=-1):
    item = b"1,"
    head = (b'{"ok": true, "kind": "result", "elapsed": 0.0, "$blobs": 0, "result": [' + item * 3_000_000
            + b'1]}')
    os.write(int(sys.argv[2]), struct.pack(">I", len(head)) + head)
    os._exit(0)
