# attnprep: softmax
# expect-status: error
import sys

sys.exit(0)
