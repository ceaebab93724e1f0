# attnprep: softmax
# expect-status: fail
# expect-message-any: malformed reply
# An exception reply with a number where the class names go, and a line that is a string.
import json
import os
import struct
import sys


def softmax(z, axis=-1):
    head = json.dumps({"ok": False, "kind": "exception", "type": 7, "mro": 5, "message": None, "line": "x",
                       "$blobs": 0}).encode()
    os.write(int(sys.argv[2]), struct.pack(">I", len(head)) + head)
    os._exit(0)
