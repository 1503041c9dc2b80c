#!/usr/bin/python3
"""Times torch.optim.RMSprop's step for mnist_mlp's parameters on this CPU (1 thread): inside
training steps, called alone, and for six 10-element parameters (the per-tensor Python cost).
Check figures for docs/accuracy.md ("torch.optim's Python loop"); never an input to a prediction.

    /usr/bin/python3 tools/reference/optimizer_step.py
"""
import os

for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ[var] = "1"

import time  # noqa: E402

import torch  # noqa: E402
from torch import nn  # noqa: E402


def median_ms(times):
    times = sorted(times)
    return times[len(times) // 2] * 1e3


def main():
    torch.set_num_threads(1)
    net = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Dropout(0.2), nn.Linear(512, 512),
                        nn.ReLU(), nn.Dropout(0.2), nn.Linear(512, 10))
    opt = torch.optim.RMSprop(net.parameters(), lr=0.001)
    x, y = torch.rand(128, 784), torch.randint(0, 10, (128,))
    forward_backward, in_step, alone = [], [], []
    for i in range(60):
        a = time.perf_counter()
        opt.zero_grad()
        nn.functional.cross_entropy(net(x), y).backward()
        b = time.perf_counter()
        opt.step()
        c = time.perf_counter()
        if i >= 10:
            forward_backward.append(b - a)
            in_step.append(c - b)
    for _ in range(50):
        a = time.perf_counter()
        opt.step()
        alone.append(time.perf_counter() - a)
    tiny = [nn.Parameter(torch.rand(10)) for _ in range(6)]
    for p in tiny:
        p.grad = torch.rand(10)
    tiny_opt = torch.optim.RMSprop(tiny)
    small = []
    for i in range(600):
        a = time.perf_counter()
        tiny_opt.step()
        if i >= 100:
            small.append(time.perf_counter() - a)
    print("forward+backward %.3f ms; RMSprop.step in the step %.3f ms, alone %.3f ms, "
          "six 10-value parameters %.3f ms" % (median_ms(forward_backward), median_ms(in_step),
                                               median_ms(alone), median_ms(small)))


if __name__ == "__main__":
    main()
