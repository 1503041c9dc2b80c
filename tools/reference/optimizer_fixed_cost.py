#!/usr/bin/python3
"""What torch.optim costs a training step apart from its kernels, on this CPU: `zero_grad` (the
PyTorch 1.13 default, zeroing the gradients in place) and `step` over one and over six one-value
parameters, for each optimizer the zoo's models train with (medians of 2,000 after 200 warm-up).
Every kernel is over one value, so the time is Python's and the dispatcher's: the difference
between six tensors and one gives the cost per tensor, and what is left of one tensor the cost
per step. docs/accuracy.md, "Issue 7's figures one harness log at a time". A check, never an
input to a prediction.

    /usr/bin/python3 tools/reference/optimizer_fixed_cost.py --threads 1
"""
import argparse
import statistics
import time

import pin_threads  # noqa: F401  (every thread pool pinned to --threads)
import torch

OPTIMIZERS = {
    "adam": lambda ps: torch.optim.Adam(ps, lr=1e-3),
    "adamw": lambda ps: torch.optim.AdamW(ps, lr=1e-3),
    "rmsprop": lambda ps: torch.optim.RMSprop(ps, lr=1e-3),
    "adadelta": lambda ps: torch.optim.Adadelta(ps, lr=1.0),
    "sgd": lambda ps: torch.optim.SGD(ps, lr=0.01),
}


def step_us(name, tensors):
    params = [torch.zeros(1, requires_grad=True) for _ in range(tensors)]
    for p in params:
        p.grad = torch.zeros(1)
    opt = OPTIMIZERS[name](params)

    def once():
        opt.zero_grad(set_to_none=False)
        opt.step()

    for _ in range(200):
        once()
    times = []
    for _ in range(2000):
        t = time.perf_counter()
        once()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1e6


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=1)
    torch.set_num_threads(ap.parse_args().threads)
    for name in OPTIMIZERS:
        one, six = step_us(name, 1), step_us(name, 6)
        per_tensor = (six - one) / 5
        print("%-8s 1 tensor %6.1f us, 6 tensors %6.1f us: %5.1f us a tensor, %5.1f us a step"
              % (name, one, six, per_tensor, one - per_tensor))


if __name__ == "__main__":
    main()
