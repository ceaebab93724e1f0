# attnprep: softmax
# expect-status: timeout
import time

time.sleep(3600)
