# attnprep: softmax
# expect-status: error
# expect-message: `softmax`
