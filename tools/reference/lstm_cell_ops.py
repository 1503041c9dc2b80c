#!/usr/bin/env python3
"""PyTorch's LSTM and the ops of its cell, timed alone on this CPU (1 thread by default).

The ops of ATen's unrolled LSTM cell (RNN.cpp, PyTorch 1.13 on a CPU) on warm tensors, one call
repeated, to set beside what they take inside a training step (tools/reference/perf_ops.py) and
beside epochcost's profile rows (docs/accuracy.md, "Where an unrolled LSTM's step goes"). It
checks predictions; it never produces them.

    /usr/bin/python3 tools/reference/lstm_cell_ops.py [--threads 1] BATCH INPUT HIDDEN STEPS

lstm_text_generation is 128 57 128 40; imdb_bidirectional_lstm (one direction) 32 128 64 100.
Prints medians in milliseconds: the whole layer forward without and with autograd and forward
plus backward; then the cell's ops alone.
"""
import argparse

import pin_threads  # noqa: E402,F401  (every thread pool pinned to --threads)
import torch  # noqa: E402
from framework_costs import median_seconds  # noqa: E402


def median_ms(fn, repeats=50, warmup=5):
    return median_seconds(fn, repeats=repeats, warmup=warmup) * 1e3


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("sizes", nargs=4, type=int, metavar="BATCH INPUT HIDDEN STEPS")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    b, i, h, t = a.sizes
    lstm = torch.nn.LSTM(i, h, batch_first=True)
    x = torch.randn(b, t, i)

    def forward_no_grad():
        with torch.no_grad():
            lstm(x)

    def forward_backward():
        _, (hn, _) = lstm(x)
        hn.sum().backward()

    print("layer: forward without autograd %.3f, with it %.3f, forward and backward %.3f" %
          (median_ms(forward_no_grad), median_ms(lambda: lstm(x)), median_ms(forward_backward)))
    hx, w, bias = torch.randn(b, h), torch.randn(4 * h, h), torch.randn(4 * h)
    projected = torch.randn(t, b, 4 * h)
    gates = torch.addmm(bias, hx, w.t())
    chunk = gates.unsafe_chunk(4, 1)
    cell = torch.randn(b, h)
    grads = [torch.randn(b, 4 * h) for _ in range(t)]
    flat, w_in = torch.randn(b * t, i), torch.randn(4 * h, i)
    rows = [
        ("input projection addmm %dx%dx%d" % (b * t, i, 4 * h),
         lambda: torch.addmm(bias, flat, w_in.t())),
        ("hidden projection addmm %dx%dx%d" % (b, h, 4 * h), lambda: torch.addmm(bias, hx, w.t())),
        ("gate sum add_ over %d" % (b * 4 * h), lambda: gates.add_(projected[0])),
        ("sigmoid_ over one gate's slice (%d)" % (b * h), lambda: chunk[0].sigmoid_()),
        ("tanh over %d" % (b * h), lambda: cell.tanh()),
        ("mul over %d" % (b * h), lambda: chunk[1] * cell),
        ("stack of %d gate gradients [%d, %d]" % (t, b, 4 * h), lambda: torch.stack(grads)),
    ]
    for name, fn in rows:
        print("%-45s %.4f" % (name, median_ms(fn, repeats=200)))


if __name__ == "__main__":
    main()
