# attnprep: softmax
# expect-status: fail
# expect-message-any: malformed reply
# A reply nested 5,000 levels deep in the codec's own tags, below what JSON itself refuses.
import os
import struct
import sys


def softmax(z, axis=-1):
    depth = 900
    head = (b'{"ok": true, "kind": "result", "elapsed": 0.0, "$blobs": 0, "result": ' + b'{"$tuple": [' * depth
            + b"]}" * depth + b"}")
    os.write(int(sys.argv[2]), struct.pack(">I", len(head)) + head)
    os._exit(0)
