#!/usr/bin/env python3
"""PyTorch's bernoulli_ and dropout over 1,179,648 values (mnist_cnn's first dropout at batch 128)
in f32 and bf16, 1 thread, median of 15 calls: the loop PyTorch runs serially for both types
(profiler/cpu/aten_kernels.cpp, Dropout). Usage: /usr/bin/python3 tools/reference/dropout_dtypes.py
"""
from framework_costs import median_seconds  # pins every thread pool to 1 thread
import torch  # noqa: E402

torch.set_num_threads(1)
for dt in (torch.float32, torch.bfloat16):
    x = torch.empty(1179648, dtype=dt)
    print(dt, "bernoulli_ median %.2f ms" %
          (median_seconds(lambda: x.bernoulli_(0.75), repeats=15, warmup=3) * 1e3))
    y = torch.randn(1179648).to(dt)
    print(dt, "dropout median %.2f ms" % (median_seconds(
        lambda: torch.nn.functional.dropout(y, 0.25, True), repeats=15, warmup=0) * 1e3))
