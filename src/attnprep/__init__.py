"""attnprep: an interview trainer for writing transformer attention from scratch."""

__version__ = "0.1.0"

# Set for the judge's process and every worker. The judge's NumPy works on small arrays, where BLAS threads only
# spin, and on two cores they took the core a worker needed (check of mha 0.30 s -> 0.25 s with one thread).
# Read by the BLAS libraries when NumPy loads.
ONE_BLAS_THREAD = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}

# `check`'s default --timeout: the entry point (launch.py) starts a worker for it before the command line is parsed.
CHECK_TIMEOUT_S = 10.0
