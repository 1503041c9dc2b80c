#!/usr/bin/python3
"""Times PyTorch's torch.mm (OpenBLAS's sgemm in Debian's build) at 2 threads on this CPU: repeated
alone, and right after an element-wise op ATen runs on its OpenMP threads (a relu over 65,536
values), with 0 to 3 ms of serial Python work between the two. Run it twice, the second time with
OMP_WAIT_POLICY=passive, to see GNU OpenMP's spinning threads take the cores OpenBLAS's workers
need. Check figures for docs/accuracy.md ("Two threads"); never an input to a prediction.

    /usr/bin/python3 tools/reference/blas_after_openmp.py
    OMP_WAIT_POLICY=passive /usr/bin/python3 tools/reference/blas_after_openmp.py
"""
import os

for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ[var] = "2"

import statistics  # noqa: E402
import time  # noqa: E402

import torch  # noqa: E402

torch.set_num_threads(2)
parallel_input = torch.randn(128 * 512)  # above ATen's grain size (32,768): an OpenMP region


def median_ms(timed_call, runs=150):
    for _ in range(10):
        timed_call()
    return statistics.median(timed_call() for _ in range(runs)) * 1e3


def spin(microseconds):
    end = time.perf_counter() + microseconds * 1e-6
    while time.perf_counter() < end:
        pass


def main():
    print("m x k x n      alone (ms)  after relu, with a gap of 0 / 100 / 300 / 1000 / 3000 us")
    for m, k, n in [(128, 512, 512), (128, 784, 512), (128, 512, 10), (512, 512, 512),
                    (32, 128, 128), (32, 2304, 512)]:
        x, w = torch.randn(m, k), torch.randn(k, n)

        def alone():
            start = time.perf_counter()
            x.mm(w)
            return time.perf_counter() - start

        row = []
        for gap in (0, 100, 300, 1000, 3000):
            def after_relu(gap=gap):
                torch.relu(parallel_input)
                spin(gap)
                start = time.perf_counter()
                x.mm(w)
                return time.perf_counter() - start
            row.append(median_ms(after_relu))
        print(f"{m}x{k}x{n}".ljust(14), f"{median_ms(alone):10.3f} ",
              " / ".join(f"{t:.3f}" for t in row), flush=True)


if __name__ == "__main__":
    main()
