#!/usr/bin/python3
"""How much PyTorch's CPU max pooling depends on its data, and what data the harness gives it.
Check figures for docs/accuracy.md ("Max pooling runs at the speed of its data"); never an input
to a prediction.

ATen's cpu_max_pool keeps a running maximum with a branch per value, so its time follows how
predictable that branch is. (1) Times F.max_pool2d (2x2, with indices) over cifar10_cnn's first
pooled tensor, 32x32x30x30, at 1 thread, with a given fraction of its values zero (the rest
uniform in [0, 1)). (2) Trains cifar10_cnn as tools/reference/torch_step.py does (its model,
synthetic inputs, random targets, RMSprop) and prints the fraction of zeros entering each max
pooling layer over the first steps, at lr 0.001 (what the harness used for every RMSprop model
until the model files carried their authors' rates: the ReLUs die within a few steps) and at the
model's own 0.0001 (`training.learning_rate`: they live).

    /usr/bin/python3 tools/reference/max_pool_data.py
"""
import json
import os
import statistics
import sys
import time

sys.argv = [sys.argv[0], "--threads", "1"]
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pin_threads  # noqa: E402,F401  (every thread pool pinned to 1 thread)
import torch  # noqa: E402
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

import torch_step  # noqa: E402


def pool_ms(x, runs=100):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        F.max_pool2d(x, 2, return_indices=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def main():
    torch.set_num_threads(1)
    torch.manual_seed(0)
    print("zeros in 32x32x30x30   max_pool2d 2x2 (median of 100, ms)")
    for fraction in (0.0, 0.5, 0.8, 0.9, 0.95, 1.0):
        x = torch.rand(32, 32, 30, 30)
        x[torch.rand_like(x) < fraction] = 0
        print("%.2f                   %.3f" % (fraction, pool_ms(x)))

    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    doc = json.load(open(os.path.join(root, "data/models/cifar10_cnn.json")))
    for lr in (0.001, doc["training"]["learning_rate"]):
        print("RMSprop at lr %g" % lr)
        train(doc, lr)


def train(doc, lr):
    torch.manual_seed(0)
    net = torch_step.Net(doc)
    zeros = []
    for m in net.modules():
        if isinstance(m, nn.MaxPool2d):
            m.register_forward_hook(
                lambda mod, args, out: zeros.append((args[0] == 0).float().mean().item()))
    inputs = {l["name"]: torch.rand([32] + net.shape[l["name"]])
              for l in net.layers if l["kind"] == "input"}
    opt = torch.optim.RMSprop(net.parameters(), lr=lr)
    _, src, _, _ = net.losses[0]
    target = torch.randint(0, net.shape[src][-1], (32,))
    print("step  zeros entering each max pooling layer  loss")
    for step in range(20):
        opt.zero_grad()
        loss = F.nll_loss(torch.log(net(inputs)[src] + 1e-7), target)
        loss.backward()
        opt.step()
        if step in (0, 1, 2, 5, 10, 19):
            print("%4d  %s  %.3f" % (step, " ".join("%.2f" % z for z in zeros[-2:]), loss.item()))


if __name__ == "__main__":
    main()
