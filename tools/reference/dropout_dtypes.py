#!/usr/bin/env python3
"""PyTorch's bernoulli_ and dropout over 1,179,648 values (mnist_cnn's first dropout at batch 128)
in f32 and bf16, 1 thread, median of 15 calls: the loop PyTorch runs serially for both types
(profiler/cpu/aten_kernels.cpp, Dropout). Usage: /usr/bin/python3 tools/reference/dropout_dtypes.py
"""
import torch, time
torch.set_num_threads(1)
for dt in (torch.float32, torch.bfloat16):
    x = torch.empty(1179648, dtype=dt)
    for _ in range(3): x.bernoulli_(0.75)
    ts=[]
    for _ in range(15):
        t=time.perf_counter(); x.bernoulli_(0.75); ts.append(time.perf_counter()-t)
    ts.sort(); print(dt, 'bernoulli_ median %.2f ms' % (ts[7]*1e3))
    y = torch.randn(1179648).to(dt)
    ts=[]
    for _ in range(15):
        t=time.perf_counter(); z = torch.nn.functional.dropout(y, 0.25, True); ts.append(time.perf_counter()-t)
    ts.sort(); print(dt, 'dropout median %.2f ms' % (ts[7]*1e3))
