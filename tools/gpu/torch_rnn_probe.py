#!/usr/bin/env python3
"""A diagnostic, not part of the product: PyTorch's side of tools/gpu/rnn_probe.cu. Times one
nn.LSTM layer's forward and backward on the GPU (fp32, TF32 off, as torch_step.py runs fp32)
with CUDA events and the host's enqueue time, and lists the kernels torch.profiler sees.
Usage: torch_rnn_probe.py [T MB IC HC DIRS]"""
import sys
import time

import torch


def main():
    t, mb, ic, hc, dirs = (list(map(int, sys.argv[1:6])) + [100, 32, 128, 64, 2][len(sys.argv) - 1:])[:5]
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.benchmark = True
    dev = torch.device("cuda")
    lstm = torch.nn.LSTM(ic, hc, batch_first=True, bidirectional=dirs == 2).to(dev)
    x = torch.randn(mb, t, ic, device=dev, requires_grad=True)
    print("torch", torch.__version__, "cudnn", torch.backends.cudnn.version(),
          "t=%d mb=%d ic=%d hc=%d dirs=%d fp32" % (t, mb, ic, hc, dirs))

    def fwd():
        return lstm(x)

    def step():
        y, (h, c) = lstm(x)
        (y.sum() + h.sum()).backward()

    for f, name in ((fwd, "forward"), (step, "forward+backward")):
        for _ in range(10):
            f()
        torch.cuda.synchronize()
        gpu, host = [], []
        for _ in range(30):
            a = torch.cuda.Event(enable_timing=True)
            b = torch.cuda.Event(enable_timing=True)
            a.record()
            t0 = time.perf_counter()
            f()
            t1 = time.perf_counter()
            b.record()
            torch.cuda.synchronize()
            gpu.append(a.elapsed_time(b))
            host.append((t1 - t0) * 1e3)
        gpu.sort()
        host.sort()
        print("%-18s %.3f ms (host %.3f ms)" % (name, gpu[15], host[15]))

    from torch.profiler import profile, ProfilerActivity
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as p:
        for _ in range(5):
            step()
        torch.cuda.synchronize()
    print(p.key_averages().table(sort_by="cuda_time_total", row_limit=25))


if __name__ == "__main__":
    main()
