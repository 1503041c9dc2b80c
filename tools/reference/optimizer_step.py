#!/usr/bin/python3
"""Times torch.optim's update of one parameter tensor on this CPU as a training step makes it:
zero_grad (in place), the backward pass's accumulation of the gradient (add_), and step(), the
median of 300 after 30 warm-up, for each optimizer named, one after another in one process. It
is what `epochcost profile op "optimizer dt=f32 alg=ALG aten=1 n=N"` times, less the per-call
cost that `predict` adds (docs/accuracy.md, "The eighth Zen 4 VM thirteen hours after its
profile; AdamW"). Run it with the allocator keeping its memory
(tools/reference/allocator_keeps.sh): with glibc's defaults the step's temporaries
(`sqrt`, `div`) are faulted in again each step or not, depending on what ran before. A check,
never an input to a prediction.

    source tools/reference/allocator_keeps.sh
    /usr/bin/python3 tools/reference/optimizer_step.py adam,adamw --threads 1 --n 1000000
"""
import argparse
import statistics
import time

import pin_threads  # noqa: F401  (every thread pool pinned to --threads)
import torch
from optimizer_calls import OPTIMIZERS  # torch.optim's defaults, as the lowering counts them


def update_ms(name, n):
    w = torch.nn.Parameter(torch.randn(n))
    opt = OPTIMIZERS[name]([w])
    g = torch.randn(n)
    w.grad = torch.zeros(n)
    times = []
    for _ in range(330):
        start = time.perf_counter()
        opt.zero_grad(set_to_none=False)
        w.grad.add_(g)
        opt.step()
        times.append(time.perf_counter() - start)
    return statistics.median(times[30:]) * 1e3


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("optimizers", help="comma-separated: " + ", ".join(OPTIMIZERS))
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--n", type=int, default=1_000_000, help="values in the tensor")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    print("torch %s, %d thread(s), n=%d" % (torch.__version__, a.threads, a.n))
    for name in a.optimizers.split(","):
        print("%-9s median %.3f ms" % (name, update_ms(name, a.n)))


if __name__ == "__main__":
    main()
