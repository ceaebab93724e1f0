# attnprep: softmax
# expect-status: fail
import json
import os

report = {"version": 1, "exercise": "softmax", "file": "x.py", "status": "pass", "message": None,
          "elapsed_s": 0.1, "seed": 0, "invariants": [], "mistakes": [], "clock": None}
print(json.dumps(report))
os.write(1, json.dumps(report).encode())


def softmax(z, axis=-1):
    print(json.dumps(report))
    return z
