#!/usr/bin/python3
"""Issue 3's fidelity check for convolutions: PyTorch's forward convolutions of cifar10_cnn
(batch 32, fp32, NCHW, 1 thread, median of 100 calls under torch.no_grad after 10 warm-up calls)
beside `epochcost profile op` of the same signatures. Check figures for docs/accuracy.md; never
an input to a prediction.

    /usr/bin/python3 tools/reference/conv_fidelity.py build/cli/epochcost
"""
import os

os.environ["OMP_NUM_THREADS"] = "1"
os.environ["OPENBLAS_NUM_THREADS"] = "1"

import re  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import torch  # noqa: E402

# (ic, ih, oc, pad): cifar10_cnn's four 3x3 convolutions, as `epochcost models ops` lists them.
SHAPES = [(3, 32, 32, 1), (32, 32, 32, 0), (32, 15, 64, 1), (64, 15, 64, 0)]


def torch_ms(ic, ih, oc, pad):
    x = torch.randn(32, ic, ih, ih)
    w = torch.randn(oc, ic, 3, 3)
    b = torch.randn(oc)
    times = []
    with torch.no_grad():
        for i in range(110):
            start = time.perf_counter()
            torch.nn.functional.conv2d(x, w, b, padding=pad)
            if i >= 10:
                times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def epochcost_ms(binary, ic, ih, oc, pad):
    oh = ih + 2 * pad - 2
    sig = (f"conv_fwd dt=f32 dh=1 dw=1 g=1 ic={ic} ih={ih} iw={ih} kh=3 kw=3 mb=32 oc={oc} "
           f"oh={oh} ow={oh} ph={pad} pw={pad} sh=1 sw=1")
    out = subprocess.run([binary, "profile", "op", sig], check=True, capture_output=True,
                         text=True).stdout
    return float(re.search(r"median ([0-9.]+) ms", out).group(1))


def main():
    torch.set_num_threads(1)
    binary = sys.argv[1] if len(sys.argv) > 1 else "build/cli/epochcost"
    print("conv (ic, ih, oc, pad)   epochcost ms   PyTorch ms   epochcost rate / PyTorch's")
    for shape in SHAPES:
        ours, theirs = epochcost_ms(binary, *shape), torch_ms(*shape)
        print("%-24s %12.3f %12.3f %10.2fx" % (shape, ours, theirs, theirs / ours))


if __name__ == "__main__":
    main()
