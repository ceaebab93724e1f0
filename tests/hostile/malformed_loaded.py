# attnprep: softmax
# expect-status: error
# expect-message: malformed reply
# A `loaded` reply whose fields have the wrong types, written straight into the reply pipe.
import json
import os
import struct
import sys

head = json.dumps({"ok": True, "kind": "loaded", "missing": 5, "$blobs": 0}).encode()
os.write(int(sys.argv[2]), struct.pack(">I", len(head)) + head)
os._exit(0)
