#!/usr/bin/python3
"""mnist_mlp's training step (batch 128, fp32, RMSprop) written out as plain ATen calls from
Python, without autograd, nn.Module or torch.optim: the kernels PyTorch's step runs, in its order,
with almost none of the framework's machinery around them. Set beside `epochcost profile step
mnist_mlp --threads T` (the lowered step replayed by the profiler) and `torch_step.py
data/models/mnist_mlp.json --threads T` (PyTorch's own step), it splits a gap between the replay
and PyTorch into the kernels (plain calls against the replay) and the machinery (PyTorch against
the plain calls). docs/accuracy.md, "mnist_mlp at 1 thread: the kernels match, the machinery
does not". A check, never an input to a prediction.

    source tools/reference/allocator_keeps.sh
    /usr/bin/python3 tools/reference/plain_aten_step.py --threads 1 [--ops]

Prints the median of 200 steps after 20 warm-up, by phase (zero_grad, forward with the loss,
backward, update). --ops then times 100 more steps under torch.profiler and prints each ATen op's
self time a step and a call, by input shape (the profiler's own cost included: a few
microseconds a call).
"""
import argparse
import statistics
import time

import pin_threads  # noqa: F401  (every thread pool pinned to --threads)
import torch

BATCH = 128
SHAPES = [(512, 784), (512,), (512, 512), (512,), (10, 512), (10,)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--ops", action="store_true")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    x = torch.rand(BATCH, 784)
    y = torch.randint(0, 10, (BATCH,))
    params = [torch.rand(s) * 0.01 for s in SHAPES]
    grads = [torch.zeros(s) for s in SHAPES]
    square_avg = [torch.zeros(s) for s in SHAPES]
    threshold_backward = torch.ops.aten.threshold_backward
    clock = time.perf_counter

    def step():
        t0 = clock()
        for g in grads:  # zero_grad(set_to_none=False), PyTorch 1.13's default
            g.zero_()
        t1 = clock()
        w1, b1, w2, b2, w3, b3 = params
        h1 = torch.addmm(b1, x, w1.t())
        r1 = torch.relu(h1)
        m1 = torch.empty_like(r1).bernoulli_(0.8).div_(0.8)  # F.dropout(p=0.2)
        d1 = r1 * m1
        h2 = torch.addmm(b2, d1, w2.t())
        r2 = torch.relu(h2)
        m2 = torch.empty_like(r2).bernoulli_(0.8).div_(0.8)
        d2 = r2 * m2
        h3 = torch.addmm(b3, d2, w3.t())
        p = torch.softmax(h3, 1)
        lp = torch.log(p + 1e-7)  # the harness's categorical cross-entropy
        torch.nn.functional.nll_loss(lp, y)
        t2 = clock()
        dlp = torch.zeros_like(lp)
        dlp[torch.arange(BATCH), y] = -1.0 / BATCH
        dp = dlp / (p + 1e-7)
        dh3 = torch._softmax_backward_data(dp, p, 1, torch.float32)
        dw3, db3, dd2 = dh3.t().mm(d2), dh3.sum(0), dh3.mm(w3)
        dh2 = threshold_backward(dd2 * m2, r2, 0)
        dw2, db2, dd1 = dh2.t().mm(d1), dh2.sum(0), dh2.mm(w2)
        dh1 = threshold_backward(dd1 * m1, r1, 0)
        dw1, db1 = dh1.t().mm(x), dh1.sum(0)
        for g, d in zip(grads, [dw1, db1, dw2, db2, dw3, db3]):  # AccumulateGrad
            g.add_(d)
        t3 = clock()
        for p_, g, s in zip(params, grads, square_avg):  # _single_tensor_rmsprop, defaults
            s.mul_(0.99).addcmul_(g, g, value=0.01)
            avg = s.sqrt().add_(1e-8)
            p_.addcdiv_(g, avg, value=-0.001)
        t4 = clock()
        return t1 - t0, t2 - t1, t3 - t2, t4 - t3, t4 - t0

    with torch.no_grad():
        for _ in range(20):
            step()
        runs = [step() for _ in range(200)]
        ms = lambda k: statistics.median(r[k] for r in runs) * 1e3
        print("plain ATen mnist_mlp threads=%d: zero_grad %.3f forward %.3f backward %.3f "
              "update %.3f step %.3f ms (medians of 200 steps)"
              % (a.threads, ms(0), ms(1), ms(2), ms(3), ms(4)))
        if not a.ops:
            return
        from torch.profiler import ProfilerActivity, profile
        steps = 100
        with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
            for _ in range(steps):
                step()
    events = prof.key_averages(group_by_input_shape=True)
    total = 0.0
    for e in sorted(events, key=lambda e: -e.self_cpu_time_total):
        total += e.self_cpu_time_total
        if e.self_cpu_time_total / steps < 10:  # under 10 us a step
            continue
        print("%-28s %6.3f ms/step %8.4f ms/call x%-3d %s"
              % (e.key, e.self_cpu_time_total / 1e3 / steps, e.self_cpu_time_total / 1e3 / e.count,
                 e.count // steps, e.input_shapes))
    print("all ops' self time %.3f ms/step (under the profiler)" % (total / 1e3 / steps))


if __name__ == "__main__":
    main()
