#!/usr/bin/python3
"""Records what glibc's malloc sees during one PyTorch training step of an epochcost model, and
the step's minor page faults (checking only: it explains a gap in the same-device comparison,
docs/accuracy.md; it never feeds a prediction).

    gcc -O2 -shared -fPIC tools/reference/malloc_trace/shim.c -o /tmp/malloc_shim.so
    TRACE_OUT=/tmp/mnist_cnn.trace LD_PRELOAD=/tmp/malloc_shim.so \\
        /usr/bin/python3 tools/reference/malloc_trace/trace_step.py data/models/mnist_cnn.json 1
    gcc -O2 tools/reference/malloc_trace/replay.c -o /tmp/malloc_replay
    /tmp/malloc_replay /tmp/mnist_cnn.trace 40

The model is trained by tools/reference/torch_step.py (same model, batch, optimizer). The shim
records every malloc, free, realloc and aligned allocation of the step after the warm-up (from one
zero_grad to the next) as lines "OP ADDRESS OLD_ADDRESS BYTES"; this script prints the median
minor faults per step over the following steps (getrusage). replay.c replays the recorded step
through this process's glibc, touching every page the program would write, and reports the
faults per step a fresh process gets from the same allocation sequence.
"""
import ctypes
import os
import resource
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
model, threads = sys.argv[1], sys.argv[2]
warmup = 6
sys.argv = [sys.argv[0], model, "--threads", threads, "--steps", "12", "--warmup", str(warmup)]
import torch_step  # noqa: E402  (pins the thread pools before importing torch)
import torch  # noqa: E402

shim = ctypes.CDLL(None)  # the preloaded shim's trace_on/trace_off
out = os.environ["TRACE_OUT"].encode()
calls, faults = [0], []
_zero_grad = torch.optim.Optimizer.zero_grad


def zero_grad(self, *args, **kwargs):
    calls[0] += 1
    faults.append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt)
    if calls[0] == warmup + 1:
        shim.trace_on()
    if calls[0] == warmup + 2:
        shim.trace_off(out)
    return _zero_grad(self, *args, **kwargs)


torch.optim.Optimizer.zero_grad = zero_grad
torch_step.main()
per_step = sorted(faults[i + 1] - faults[i] for i in range(warmup + 2, len(faults) - 1))
median = per_step[len(per_step) // 2]
print("minor faults per step, median of %d steps after the traced one: %d (%.1f MB)" %
      (len(per_step), median, median * 4096 / 1e6))
