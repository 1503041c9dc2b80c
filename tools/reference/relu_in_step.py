#!/usr/bin/env python3
"""PyTorch's ReLU and its gradient over mnist_cnn's largest activation (128 x 64 x 24 x 24), 1
thread, median of 21 calls, repeated alone: against the same ops inside a training step
(torch_step.py --kernels) it shows what the step adds (docs/accuracy.md, "Where the remaining gap
is"). Usage: /usr/bin/python3 tools/reference/relu_in_step.py
"""
from framework_costs import median_seconds  # pins every thread pool to 1 thread
import torch  # noqa: E402

torch.set_num_threads(1)


def median_ms(f):
    return median_seconds(f, repeats=21, warmup=3) * 1e3


for dt in (torch.float32, torch.bfloat16):
    x = torch.randn(128 * 64 * 24 * 24).to(dt)
    y = torch.empty_like(x)
    g = torch.randn_like(x)
    print(dt, "relu fresh %.2f ms, into a kept tensor %.2f ms; threshold_backward fresh %.2f ms" % (
        median_ms(lambda: torch.relu(x)), median_ms(lambda: torch.clamp_min(x, 0, out=y)),
        median_ms(lambda: torch.ops.aten.threshold_backward(g, x, 0))))
