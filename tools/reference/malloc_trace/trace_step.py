#!/usr/bin/python3
"""Records what glibc's malloc sees during PyTorch training steps of an epochcost model, and the
steps' minor page faults (checking only: it explains a gap in the same-device comparison,
docs/accuracy.md; it never feeds a prediction).

One step after the warm-up, replayed in a fresh process:

    gcc -O2 -shared -fPIC tools/reference/malloc_trace/shim.c -o /tmp/malloc_shim.so
    TRACE_OUT=/tmp/mnist_cnn.trace LD_PRELOAD=/tmp/malloc_shim.so \\
        /usr/bin/python3 tools/reference/malloc_trace/trace_step.py data/models/mnist_cnn.json 1
    gcc -O2 tools/reference/malloc_trace/replay.c -o /tmp/malloc_replay
    /tmp/malloc_replay /tmp/mnist_cnn.trace 40

The whole process, from its start to the end of the seventh step (--from-start), replayed call
for call:

    TRACE_FROM_START=1 TRACE_OUT=/tmp/mnist_cnn.whole LD_PRELOAD=/tmp/malloc_shim.so \\
        /usr/bin/python3 tools/reference/malloc_trace/trace_step.py \\
        data/models/mnist_cnn.json 1 --from-start
    gcc -O2 tools/reference/malloc_trace/replay_whole.c -o /tmp/malloc_replay_whole
    /tmp/malloc_replay_whole /tmp/mnist_cnn.whole

The model is trained by tools/reference/torch_step.py (same model, batch, optimizer). The shim
records every malloc, free, realloc and aligned allocation (shim.c gives the line format); this
script prints the minor faults of every step (getrusage, counted at each zero_grad) and their
median over the steps after the traced ones. replay.c replays one recorded step through this
process's glibc, touching every page the program would write, and reports the faults per step a
fresh process gets from the same allocation sequence; replay_whole.c replays a whole process's
trace and prints the faults of each of its steps.
"""
import ctypes
import os
import resource
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
model, threads = sys.argv[1], sys.argv[2]
from_start = "--from-start" in sys.argv[3:]
warmup = 6
sys.argv = [sys.argv[0], model, "--threads", threads, "--steps", "16", "--warmup", str(warmup)]
import torch_step  # noqa: E402  (pins the thread pools before importing torch)
import torch  # noqa: E402

shim = ctypes.CDLL(None)  # the preloaded shim's trace_on/trace_mark/trace_off
out = os.environ["TRACE_OUT"].encode()
calls, faults = [0], []
_zero_grad = torch.optim.Optimizer.zero_grad


def zero_grad(self, *args, **kwargs):
    calls[0] += 1
    faults.append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt)
    shim.trace_mark()
    if not from_start and calls[0] == warmup + 1:
        shim.trace_on()
    if calls[0] == warmup + 2:
        shim.trace_off(out)
    return _zero_grad(self, *args, **kwargs)


torch.optim.Optimizer.zero_grad = zero_grad
torch_step.main()
per_step = [faults[i + 1] - faults[i] for i in range(len(faults) - 1)]
print("minor faults of each step: %s" % " ".join(str(n) for n in per_step))
after = sorted(per_step[warmup + 2:])
median = after[len(after) // 2]
print("minor faults per step, median of %d steps after the traced one: %d (%.1f MB)" %
      (len(after), median, median * 4096 / 1e6))
