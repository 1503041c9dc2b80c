#!/usr/bin/env python3
"""Where a PyTorch training step's time goes on this CPU, by ATen op, sampled by perf.

torch.profiler (torch_step.py --kernels) times every op, and on the development VMs its own cost
made the steps it watched 2-2.5x as long, its per-op figures with them. This script samples
instead: it runs torch_step.py under `perf record --call-graph dwarf` and keeps the samples taken
between the start and the end of the timed steps (torch_step.py --window-file), so imports and
warm-up are left out. Each sample is charged to

  - the innermost ATen op on its call chain (`at::_ops::NAME::call`), and, in the backward pass,
    the autograd node that called it (`generated::NODE::apply`; "engine" where the engine itself
    called the op, as when it adds a second gradient of a tensor to the first); samples in no op
    are "python" (the interpreter between ops) or "other";
  - the library the sampled instruction was in (OpenBLAS, ATen's own kernels in libtorch_cpu,
    Sleef's vectorized math, glibc's malloc and free, the kernel). Sleef's functions have no
    unwind tables, so perf cannot follow their samples to the op that called them: those are
    "no op found / Sleef" (ATen calls Sleef for tanh, exp in sigmoid, and the like).

Prints milliseconds per step for each, the top N rows. It checks predictions (docs/accuracy.md,
"Where an unrolled LSTM's step goes"); it never produces them.

    tools/reference/perf_ops.py data/models/lstm_text_generation.json --threads 1 [--steps 40]
        [--rows 25] [--freq 1000]

Needs perf (Debian's linux-perf) and kernel.perf_event_paranoid <= 2 (as root it always works).
Any torch_step.py options after `--` are passed on (the allocator comes from the environment, as
for torch_step.py).
"""
import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
OP = re.compile(r"at::_ops::(\w+)::call")
NODE = re.compile(r"generated::(\w+)::apply|\b(AccumulateGrad)::apply")


def library(frame):
    """The library a call-chain line's instruction is in, by a short name."""
    m = re.search(r"\(([^()]*)\)\s*$", frame)
    path = m.group(1) if m else ""
    base = os.path.basename(path)
    for key, name in (("openblas", "OpenBLAS"), ("libblas", "OpenBLAS"), ("sleef", "Sleef"),
                      ("libtorch_cpu", "libtorch_cpu"), ("libc10", "libc10"),
                      ("libtorch_python", "libtorch_python"), ("libc.so", "glibc"),
                      ("kallsyms", "kernel"), ("python3", "python"), ("libgomp", "libgomp"),
                      ("libdnnl", "oneDNN")):
        if key in base:
            return name
    return base or "unknown"


def leaf_library(frames):
    """The library of the sampled instruction: the first frame that is not an inlined one."""
    return library(next((f for f in frames if not f.endswith("(inlined)")), frames[0]))


def samples(script_text):
    """(time, [frames, innermost first]) for each sample of `perf script -F time,ip,sym,dso`."""
    for block in script_text.split("\n\n"):
        lines = [l for l in block.split("\n") if l.strip()]
        if not lines:
            continue
        head = lines[0].strip().rstrip(":")
        try:
            t = float(head.split()[-1].rstrip(":"))
        except ValueError:
            continue
        yield t, [l.strip() for l in lines[1:]]


def charge(frames):
    """The row a sample counts for: ("forward" or "backward", op or node/op)."""
    text = "\n".join(frames)
    op = next((m.group(1) for m in map(OP.search, frames) if m), None)
    backward = "Engine::evaluate_function" in text or "Engine::thread_main" in text
    if backward:
        node = next((m.group(1) or m.group(2) for m in map(NODE.search, frames) if m), None)
        return "backward", "%s / %s" % (node or "engine", op or "-")
    if op:
        return "forward", op
    if any("_PyEval_EvalFrameDefault" in f for f in frames):
        return "outside ops", "python"
    # A chain perf could not unwind past its first frame (Sleef's functions carry no unwind
    # tables): named by that frame's library.
    return "no op found", leaf_library(frames)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("model", help="a model JSON (data/models/NAME.json)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--rows", type=int, default=25)
    ap.add_argument("--freq", type=int, default=1000, help="samples per second (perf -F)")
    ap.add_argument("rest", nargs="*", help="more torch_step.py options, after --")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        data, window = os.path.join(tmp, "perf.data"), os.path.join(tmp, "window")
        step = [sys.executable, os.path.join(HERE, "torch_step.py"), a.model, "--threads",
                str(a.threads), "--steps", str(a.steps), "--warmup", str(a.warmup),
                "--window-file", window] + a.rest
        run = subprocess.run(["perf", "record", "-q", "-k", "CLOCK_MONOTONIC", "-F",
                              str(a.freq), "--call-graph", "dwarf,16384", "-o", data, "--"] + step,
                             stdout=subprocess.PIPE, text=True)
        if run.returncode != 0:
            sys.exit("perf_ops.py: perf record or torch_step.py failed (exit %d)" % run.returncode)
        sys.stdout.write(run.stdout)
        start, end, steps = open(window).read().split()
        start, end, steps = float(start), float(end), int(steps)
        script = subprocess.run(["perf", "script", "-i", data, "-F", "time,ip,sym,dso"],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                check=True).stdout
    rows, libs = collections.Counter(), collections.Counter()
    kept = 0
    for t, frames in samples(script):
        if not start <= t <= end or not frames:
            continue
        kept += 1
        rows[charge(frames)] += 1
        libs[leaf_library(frames)] += 1
    if kept == 0:
        sys.exit("perf_ops.py: no samples between the timed steps' start and end")
    ms = (end - start) * 1e3 / steps / kept  # milliseconds per step that one sample stands for
    print("%d samples in %d timed steps (%.3f ms a step); ms per step:" %
          (kept, steps, (end - start) * 1e3 / steps))
    print("\nby library (the sampled instruction's):")
    for lib, n in libs.most_common():
        print("  %8.3f  %5.1f%%  %s" % (n * ms, 100.0 * n / kept, lib))
    print("\nby ATen op (backward: autograd node / op), top %d:" % a.rows)
    for (phase, name), n in rows.most_common(a.rows):
        print("  %8.3f  %5.1f%%  %-11s %s" % (n * ms, 100.0 * n / kept, phase, name))


if __name__ == "__main__":
    main()
