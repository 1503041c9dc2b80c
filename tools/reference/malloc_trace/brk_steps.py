#!/usr/bin/python3
"""What glibc asks of the kernel in each PyTorch training step of an epochcost model: the heap's
growth and shrinking (brk) and the large mappings (mmap, munmap of 64 KiB and more), step by
step, from strace (checking only: it explains the page faults of docs/accuracy.md, section
"The tenth Zen 4 VM"; nothing here feeds a prediction).

    /usr/bin/python3 tools/reference/malloc_trace/brk_steps.py data/models/mnist_cnn.json 1

The model is trained by tools/reference/torch_step.py (same model, batch and optimizer; glibc's
defaults unless the environment sets MALLOC_*), 16 steps after 4 of warm-up, under `strace -f`
(Debian's strace package). Steps 1-4 are the warm-up's; the last row runs on to the process's
exit. Each step starts where the optimizer's zero_grad is called, marked in the trace by a stat()
of a path that does not exist, whose name ends in the process's minor faults so far (getrusage).
A page the heap grows by is faulted in when the step first writes it, so a step's heap growth in
pages is the part of its minor faults that glibc's heap causes.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

MARK = "/nonexistent-epochcost-step-mark"
PAGE = 4096
LARGE = 64 << 10

CHILD = r"""
import os, resource, sys
sys.path.insert(0, os.path.join(%(root)r, "tools", "reference"))
sys.argv = [sys.argv[0], %(model)r, "--threads", %(threads)r, "--steps", "16", "--warmup", "4"]
import torch_step
import torch
_zero_grad = torch.optim.Optimizer.zero_grad
def zero_grad(self, *args, **kwargs):
    try:
        os.stat(%(mark)r + "-%%d" %% resource.getrusage(resource.RUSAGE_SELF).ru_minflt)
    except FileNotFoundError:
        pass
    return _zero_grad(self, *args, **kwargs)
torch.optim.Optimizer.zero_grad = zero_grad
torch_step.main()
"""


def main(argv):
    if len(argv) != 2:
        sys.exit("usage: brk_steps.py MODEL.json THREADS")
    model, threads = argv
    if not os.path.isfile(model):
        sys.exit("brk_steps.py: %s: no such model file" % model)
    if not shutil.which("strace"):
        sys.exit("brk_steps.py: strace is not installed (apt-get install strace)")
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")
    with tempfile.TemporaryDirectory() as tmp:
        script = os.path.join(tmp, "step.py")
        with open(script, "w") as f:
            f.write(CHILD % {"root": os.path.abspath(root), "model": os.path.abspath(model),
                             "threads": threads, "mark": MARK})
        trace = os.path.join(tmp, "strace.txt")
        subprocess.run(["strace", "-f", "-e", "trace=brk,mmap,munmap,newfstatat,stat", "-o",
                        trace, "/usr/bin/python3", script], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        steps = parse(trace)
    print("step  minor faults  heap grown (pages)  heap shrunk (pages)  large mmaps (pages)  "
          "large munmaps")
    for n, s in enumerate(steps, 1):
        faults = steps[n]["faults_before"] - s["faults_before"] if n < len(steps) else -1
        print("%4s  %12s  %18d  %19d  %19d  %13d%s" % (
            n, faults if faults >= 0 else "-", s["grown"] // PAGE, s["shrunk"] // PAGE,
            s["mmapped"] // PAGE, s["munmaps"],
            "  (with the process's exit)" if n == len(steps) else ""))


def parse(path):
    """The per-step totals of a `strace -f -o` file (one brk per line, with the result)."""
    brk = re.compile(r"brk\((?:0x[0-9a-f]+|NULL)\)\s+=\s+(0x[0-9a-f]+)")
    mmap = re.compile(r"mmap\(NULL, (\d+), [^)]*MAP_ANONYMOUS[^)]*\)\s+=\s+0x")
    munmap = re.compile(r"munmap\(0x[0-9a-f]+, (\d+)\)\s+=\s+0")
    steps, current, end = [], None, None
    with open(path) as f:
        for line in f:
            if MARK in line:
                faults = re.search(re.escape(MARK) + r"-(\d+)", line)
                current = {"grown": 0, "shrunk": 0, "mmapped": 0, "munmaps": 0,
                           "faults_before": int(faults.group(1)) if faults else 0}
                steps.append(current)
                continue
            m = brk.search(line)
            if m:
                new = int(m.group(1), 16)
                if end is not None and current is not None:
                    if new > end:
                        current["grown"] += new - end
                    else:
                        current["shrunk"] += end - new
                end = new
                continue
            if current is None:
                continue
            m = mmap.search(line)
            if m and int(m.group(1)) >= LARGE:
                current["mmapped"] += int(m.group(1))
                continue
            m = munmap.search(line)
            if m and int(m.group(1)) >= LARGE:
                current["munmaps"] += 1
    if not steps:
        sys.exit("brk_steps.py: %s: no step marks in the trace" % path)
    return steps


if __name__ == "__main__":
    main(sys.argv[1:])
