#!/usr/bin/env python3
"""How much of a PyTorch GPU step the host takes, beside what epochcost predicts for it.

    tools/validation/gpu_host_share.py EPOCHCOST LOG.csv

For each run of LOG (a run log of tools/reference/torch_step.py --device cuda, whose source
states "median M ms ... host H ms"): the step and the host's part of it (the time to the last
call's return), the step's lowered calls and parameter updates, the predicted kernel time and
what the profile's measured host times add to the dispatch (`predict --json`: ops' seconds and
host_extra_seconds), the predicted step, and the host's time per lowered call left once the
library's measured host time is taken out: PyTorch's own cost per call (Python, dispatcher,
autograd), which the prediction does not hold unless calibrated. docs/accuracy.md, "The host's
part of a GPU step".
"""
import csv
import json
import re
import subprocess
import sys


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    binary, log = sys.argv[1:]
    print("| model | precision | step (ms) | host (ms) | calls | kernels (ms) | library host beyond "
          "launches (ms) | predicted (ms) | host per call, library's out (us) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in csv.DictReader(open(log)):
        m = re.search(r"median ([0-9.]+) ms.*host ([0-9.]+) ms", r["source"])
        if not m:
            continue
        step, host = float(m.group(1)), float(m.group(2))
        args = [binary, "predict", r["model"], "--on", r["target"], "--precision", r["precision"],
                "--batch", r["batch"], "--optimizer", r["optimizer"], "--samples",
                r["samples"], "--json"]
        out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
        ops = json.loads(out)["ops"]
        calls = sum(o["count"] for o in ops)
        kernels = sum(o["count"] * o["seconds"] for o in ops) * 1e3
        extra = sum(o["count"] * o.get("host_extra_seconds", 0) for o in ops) * 1e3
        predicted = json.loads(out)["step_seconds"] * 1e3
        print("| %s | %s | %.3f | %.3f | %d | %.3f | %.3f | %.3f | %.1f |" %
              (r["model"], r["precision"], step, host, calls, kernels, extra, predicted,
               (host - extra) / calls * 1e3))


if __name__ == "__main__":
    main()
