#!/usr/bin/env python3
"""What PyTorch's eager mode costs per call on this machine, apart from the kernels.

epochcost predicts a step as its kernels plus a per-op overhead (by default oneDNN's measured
dispatch cost, well under a microsecond); the framework adds its own Python and C++ work to every
op, to every parameter tensor its optimizer loops over, and to every step. This script measures
those costs with tensors so small that the kernels cost next to nothing, so that the gap between
a prediction and a real step can be split into what these costs explain and what they do not
(docs/accuracy.md). It checks predictions; it never produces them.

    /usr/bin/python3 tools/reference/framework_costs.py [--threads 1]

Prints, in microseconds (medians of 50 timed repetitions after 10 untimed):
  - an element-wise op on a 1-value and a 32x64 tensor: without autograd, with autograd
    (forward only), and the backward node it adds (a chain of 1,000 ops, per op);
  - torch.optim's step and zero_grad for Adam, RMSprop and SGD (the single-tensor for-loop, as
    PyTorch 1.13 runs it on a CPU): a fixed cost and a cost per parameter tensor (fitted from 2
    and 200 one-value parameters);
  - backward() on a one-op graph.
"""
import argparse
import time

import pin_threads  # noqa: E402,F401  (every thread pool pinned to --threads)
import torch  # noqa: E402


def median_seconds(fn, repeats=50, warmup=10):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    times.sort()
    return times[len(times) // 2]


def per_op_costs(shape, chain=1000):
    a = torch.randn(*shape, requires_grad=True)
    b = torch.randn(*shape)

    def forward():
        x = a
        for _ in range(chain):
            x = torch.mul(x, b)
        return x

    def forward_no_grad():
        with torch.no_grad():
            forward()

    def forward_backward():
        forward().sum().backward()

    no_grad = median_seconds(forward_no_grad) / chain
    fwd = median_seconds(forward) / chain
    both = median_seconds(forward_backward) / chain
    return no_grad, fwd, both - fwd


def optimizer_costs(make):
    def measure(count):
        params = [torch.nn.Parameter(torch.randn(1)) for _ in range(count)]
        for p in params:
            p.grad = torch.randn(1)
        opt = make(params)
        return median_seconds(opt.step), median_seconds(opt.zero_grad)

    (step_few, zero_few), (step_many, zero_many) = measure(2), measure(200)
    step_per = (step_many - step_few) / 198
    zero_per = (zero_many - zero_few) / 198
    return step_few - 2 * step_per, step_per, zero_few - 2 * zero_per, zero_per


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--threads", type=int, default=1)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    us = 1e6
    print("torch %s, %d thread(s)" % (torch.__version__, a.threads))
    for shape in [(1,), (32, 64)]:
        no_grad, fwd, bwd = per_op_costs(shape)
        print("element-wise op %-8s: %.2f us without autograd, %.2f us with it, "
              "backward node %.2f us" % ("x".join(map(str, shape)), no_grad * us, fwd * us,
                                         bwd * us))
    for name, make in [("adam", lambda p: torch.optim.Adam(p, lr=1e-3)),
                       ("rmsprop", lambda p: torch.optim.RMSprop(p, lr=1e-3)),
                       ("sgd", lambda p: torch.optim.SGD(p, lr=1e-3))]:
        step0, step_per, zero0, zero_per = optimizer_costs(make)
        print("%-7s step %.1f us + %.2f us per parameter tensor; zero_grad %.1f us + %.2f us "
              "per parameter tensor" % (name, step0 * us, step_per * us, zero0 * us,
                                        zero_per * us))
    x = torch.randn(1, requires_grad=True)

    def tiny_step():
        (x * 2).backward()

    print("one op and backward(): %.1f us" % (median_seconds(tiny_step, repeats=200) * us))


if __name__ == "__main__":
    main()
