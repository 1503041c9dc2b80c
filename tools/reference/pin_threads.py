"""Pins every thread pool to the command line's --threads, before torch is imported.

OpenBLAS (Debian's libopenblas0-pthread) starts its own threads, one per core, unless told
otherwise; torch.set_num_threads does not reach it. Import this module before torch:

    import pin_threads  # noqa: F401  (sets OMP_, OPENBLAS_ and MKL_NUM_THREADS)
"""
import os
import sys

_threads = "1"
for _i, _arg in enumerate(sys.argv):
    if _arg == "--threads" and _i + 1 < len(sys.argv):
        _threads = sys.argv[_i + 1]
    elif _arg.startswith("--threads="):
        _threads = _arg.split("=", 1)[1]
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = _threads
