"""The host's side of a PyTorch training step, phase by phase and op by op (torch_step.py
--host-ops FILE).

On a GPU a small model's step is as long as the host takes to issue it (docs/accuracy.md, "The
host's part of a GPU step"): PyTorch's own work per call, which epochcost's profiler, calling
cuDNN and cuBLAS directly, does not see. This measures what a model of that work needs:

- each phase's host seconds (zero_grad, forward with the loss, backward, optimizer step), median
  over the steps, timed without the profiler (it adds several us a call);
- then, over a few steps under torch.profiler, the top-level PyTorch ops of each phase (those
  called from Python, and the autograd engine's nodes in the backward), with how many a step
  issues and their mean CPU time (whole and self), and the kernels a step launches.

Appends one JSON object a run to FILE (JSON lines). Use it to check and to fit the model of the
framework's host cost, never to produce a prediction.
"""
import json
import statistics
import time

import torch

PHASES = ("zero_grad", "forward", "backward", "optimizer")


class PhaseClock:
    """step(mark) calls mark(PHASE) as each phase starts and mark(None) at its end."""

    def __init__(self):
        self.times = {p: [] for p in PHASES}
        self.host = []
        self._phase = None
        self._t = 0.0
        self._start = 0.0

    def __call__(self, phase):
        now = time.perf_counter()
        if self._phase is None:
            self._start = now
        else:
            self.times[self._phase].append(now - self._t)
        if phase is None:
            self.host.append(now - self._start)
        self._phase, self._t = phase, now


class PhaseRanges:
    """mark() that opens a torch.profiler range "ec::PHASE" a phase."""

    def __init__(self):
        self._open = None

    def __call__(self, phase):
        if self._open is not None:
            self._open.__exit__(None, None, None)
            self._open = None
        if phase is not None:
            self._open = torch.profiler.record_function("ec::" + phase)
            self._open.__enter__()


def _is_cuda(ev):
    kind = getattr(ev, "device_type", None)
    return kind is not None and "CUDA" in str(kind)


def measure(step, sync, steps, profiled_steps, meta, path):
    clock = PhaseClock()
    for _ in range(steps):
        step(clock)
        sync()
    ms = lambda xs: statistics.median(xs) * 1e3 if xs else 0.0
    out = dict(meta)
    out["phase_ms"] = {p: round(ms(clock.times[p]), 4) for p in PHASES}
    out["host_ms"] = round(ms(clock.host), 4)

    from torch.profiler import ProfilerActivity, profile
    acts = [ProfilerActivity.CPU]
    if torch.cuda.is_available() and meta.get("device") == "cuda":
        acts.append(ProfilerActivity.CUDA)
    ranges = PhaseRanges()
    with profile(activities=acts) as prof:
        for _ in range(profiled_steps):
            step(ranges)
        sync()
    events = list(prof.events())
    spans = sorted((e.time_range.start, e.time_range.end, e.name[4:])
                   for e in events if e.name.startswith("ec::"))

    def phase_of(ev):
        t = ev.time_range.start
        for start, end, name in spans:
            if start <= t <= end:
                return name
        return "between"

    ops = {}
    kernels = 0
    for ev in events:
        if _is_cuda(ev):
            kernels += 1
            continue
        if ev.name.startswith("ec::") or ev.name.startswith("ProfilerStep"):
            continue
        parent = ev.cpu_parent
        if parent is not None and not parent.name.startswith("ec::"):
            continue
        key = (phase_of(ev), ev.name)
        o = ops.setdefault(key, [0, 0.0, 0.0])
        o[0] += 1
        o[1] += ev.cpu_time_total
        o[2] += ev.self_cpu_time_total
    n = float(profiled_steps)
    out["profiled_steps"] = profiled_steps
    out["kernels_per_step"] = kernels / n
    out["ops"] = [{"phase": ph, "name": name, "per_step": c / n,
                   "cpu_us": round(total / c, 3), "self_cpu_us": round(self_t / c, 3)}
                  for (ph, name), (c, total, self_t) in sorted(ops.items())]
    with open(path, "a") as f:
        f.write(json.dumps(out) + "\n")
    print("host-ops %s %s: host %.3f ms (%s); %d top-level op kinds, %.0f kernels a step" %
          (meta.get("model"), meta.get("precision"), out["host_ms"],
           ", ".join("%s %.3f" % (p, out["phase_ms"][p]) for p in PHASES), len(ops),
           out["kernels_per_step"]), flush=True)
