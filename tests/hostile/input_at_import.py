# attnprep: softmax
# expect-status: error
# expect-message: EOFError
name = input("your name? ")
