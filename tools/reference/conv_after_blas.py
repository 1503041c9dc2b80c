#!/usr/bin/python3
"""Times a PyTorch convolution (oneDNN, on ATen's OpenMP threads) at 2 threads on this CPU: repeated
alone, right after a torch.mm (OpenBLAS's sgemm in Debian's build), and 20 ms and 200 ms of serial
Python after one. Prints the median and the mean of each: OpenBLAS's worker threads keep polling
for work for about 0.1 s after a product, and on a 2-vCPU machine some runs of the next OpenMP
region then wait a scheduler slice, which moves the mean and not the median. Run it again with
OPENBLAS_NUM_THREADS=1 (no workers) to see the effect go. Check figures for docs/accuracy.md
("Latest"); never an input to a prediction.

    /usr/bin/python3 tools/reference/conv_after_blas.py
    OPENBLAS_NUM_THREADS=1 /usr/bin/python3 tools/reference/conv_after_blas.py
"""
import os

os.environ["OMP_NUM_THREADS"] = "2"
os.environ.setdefault("OPENBLAS_NUM_THREADS", "2")

import statistics  # noqa: E402
import time  # noqa: E402

import torch  # noqa: E402

torch.set_num_threads(2)
x = torch.randn(32, 32, 32, 32)
conv = torch.nn.Conv2d(32, 32, 3, padding=1)
a, b = torch.randn(128, 512), torch.randn(512, 512)


def spin(seconds):
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def timed_conv():
    start = time.perf_counter()
    conv(x)
    return time.perf_counter() - start


def after_mm(gap):
    def run():
        a.mm(b)
        spin(gap)
        return timed_conv()
    return run


def main():
    print(f"OPENBLAS_NUM_THREADS={os.environ['OPENBLAS_NUM_THREADS']}; conv 32->32 3x3 over "
          "32x32x32x32, 2 threads; ms")
    with torch.no_grad():
        for name, run, runs in [("repeated alone", timed_conv, 60),
                                ("right after a 128x512 by 512x512 mm", after_mm(0), 60),
                                ("20 ms of Python after the mm", after_mm(0.02), 60),
                                ("200 ms of Python after the mm", after_mm(0.2), 20)]:
            for _ in range(5):
                run()
            samples = [run() for _ in range(runs)]
            print(f"{name:40s} median {statistics.median(samples) * 1e3:7.3f}  "
                  f"mean {statistics.mean(samples) * 1e3:7.3f}  ({runs} runs)", flush=True)


if __name__ == "__main__":
    main()
