# attnprep: xent
# expect: pass
# style: plain Python loop per row with math.exp / math.log, returns a Python float
import math


def cross_entropy(logits, targets):
    total = 0.0
    rows = len(logits)
    for i in range(rows):
        row = [float(x) for x in logits[i]]
        t = int(targets[i])
        if not 0 <= t < len(row):
            raise ValueError(f"target {t} of row {i} is not a class of {len(row)}")
        top = max(row)
        lse = top + math.log(sum(math.exp(x - top) for x in row))
        total += lse - row[t]
    return total / rows
