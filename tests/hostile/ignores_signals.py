# attnprep: softmax
# expect-status: timeout
import signal

for s in (signal.SIGTERM, signal.SIGINT, signal.SIGALRM, signal.SIGHUP):
    signal.signal(s, signal.SIG_IGN)


def softmax(z, axis=-1):
    while True:
        try:
            pass
        except BaseException:
            pass
