#!/usr/bin/env python3
"""Writes the PyTorch steps of docs/accuracy.md's GPU table as a run log (docs/run-logs.md).

The table ("Same device, GPU") records real PyTorch training steps timed on a lent NVIDIA H100
by tools/gpu/measure.sh (tools/reference/torch_step.py --device cuda: median of 30 steps after
10 warm-up); its raw output was not kept, the table was. Each row becomes one run: an epoch of
the model's training samples at the measured median step (as torch_step.py --run-log writes it),
or a one-step epoch where the model has no data set (bert_base, gpt2_small).

Usage: tools/validation/accuracy_table_runs.py docs/accuracy.md > data/validation/h100-pytorch.csv
"""
import csv
import json
import math
import os
import re
import sys

HEADING = "## Same device, GPU:"
DEVICE = "NVIDIA H100 80GB HBM3"
TORCH = "2.11.0+cu130"
MEASURED = "2026-11-22"
COLUMNS = ["model", "target", "kind", "label", "batch", "precision", "optimizer", "threads",
           "gpus", "samples", "val_samples", "seconds_per_epoch", "first_epoch_seconds",
           "usd_per_hour", "framework", "framework_version", "source"]
ROW = re.compile(r"^\| (\w+) \| (fp32|bf16) \| (\d+) \| (\w+) \| [\d.]+ \| ([\d.]+) \[([\d.]+), ([\d.]+)\] \|")


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: accuracy_table_runs.py docs/accuracy.md")
    models = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "data", "models")
    lines = open(sys.argv[1]).read().splitlines()
    try:
        start = next(i for i, l in enumerate(lines) if l.startswith(HEADING))
    except StopIteration:
        sys.exit("%s: no section starting %r" % (sys.argv[1], HEADING))
    w = csv.writer(sys.stdout, lineterminator="\n")
    w.writerow(COLUMNS)
    rows = 0
    for line in lines[start + 1:]:
        if line.startswith("## "):
            break
        m = ROW.match(line)
        if not m:
            continue
        model, precision, batch, optimizer = m.group(1), m.group(2), int(m.group(3)), m.group(4)
        step_ms, p10, p90 = (float(m.group(i)) for i in (5, 6, 7))
        with open(os.path.join(models, model + ".json")) as f:
            samples = json.load(f)["training"].get("samples", 0)
        steps = math.ceil(samples / batch) if samples > 0 else 1
        samples = samples if samples > 0 else batch
        w.writerow([model, "device:" + DEVICE, "on-demand", DEVICE, batch, precision, optimizer,
                    "", 1, samples, 0, "%.6g" % (step_ms / 1e3 * steps), "", "", "pytorch", TORCH,
                    "tools/gpu/measure.sh %s (torch_step.py --device cuda): median of 30 steps "
                    "after 10 warm-up (p10 %.3f ms, p90 %.3f ms) x %d steps; docs/accuracy.md, "
                    "Same device, GPU" % (MEASURED, p10, p90, steps)])
        rows += 1
    if rows == 0:
        sys.exit("%s: no table rows under %r" % (sys.argv[1], HEADING))


if __name__ == "__main__":
    main()
