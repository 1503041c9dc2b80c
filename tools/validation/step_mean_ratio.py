#!/usr/bin/env python3
"""How far a harness log's epoch (median step x steps) lies below the epoch a user waits for.

The reference harness (tools/reference/harness_runs.sh) logs seconds_per_epoch as the median of
its timed steps times the steps of an epoch, as issue 3 asks (the median of at least 30 steps).
An epoch's wall time is the sum of its steps, so its mean times the steps. Where steps are
bimodal (two thread pools sharing two vCPUs, docs/accuracy.md "The whole step replayed") the two
differ. Each row's source text gives the median round's median and mean step; this prints, per
machine (the log's label), model and thread count over the logs given, how many runs, the
mean/median ratio (median and range over the runs), and the median step's and mean step's
spread between runs (slowest over fastest): which statistic is the steadier target. Not used
by the product.
Usage:
  tools/validation/step_mean_ratio.py LOG.csv...
"""
import csv
import re
import statistics
import sys

STEP = re.compile(r"median ([0-9.]+) ms, p10 [0-9.]+ ms, p90 [0-9.]+ ms, mean ([0-9.]+) ms")


def main(paths):
    if not paths:
        sys.exit(__doc__)
    runs = {}
    for path in paths:
        try:
            with open(path, newline="") as f:
                rows = list(csv.DictReader(f))
        except OSError as e:
            sys.exit(f"{path}: {e.strerror}")
        for line, row in enumerate(rows, start=2):
            match = STEP.search(row.get("source") or "")
            if not match:
                continue  # not a harness row (no step statistics in its source)
            median, mean = float(match.group(1)), float(match.group(2))
            if median <= 0 or mean <= 0:
                sys.exit(f"{path}:{line}: non-positive step time in source")
            try:
                key = (row.get("label") or row["target"], row["model"],
                       int(row["threads"] or 1), row.get("allocator") or "returns")
            except KeyError as e:
                sys.exit(f"{path}:{line}: no {e.args[0]} column")
            except ValueError:
                sys.exit(f"{path}:{line}: threads {row['threads']!r} is not a whole number")
            runs.setdefault(key, []).append((median, mean))
    if not runs:
        sys.exit("no harness rows (source with 'median .. ms, p10 .., p90 .., mean .. ms') found")
    machine = None
    for (label, model, threads, allocator), values in sorted(runs.items()):
        if label != machine:
            machine = label
            print(f"\n{label}\n{'model':26} {'thr':>3} {'alloc':8} {'runs':>4}  "
                  f"{'mean/median':>11} {'(range)':>13}  {'median spread':>13} "
                  f"{'mean spread':>11}")
        ratios = [mean / median for median, mean in values]
        medians = [median for median, _ in values]
        means = [mean for _, mean in values]
        print(f"{model:26} {threads:3} {allocator:8} {len(values):4}  "
              f"{statistics.median(ratios):11.2f} ({min(ratios):5.2f}-{max(ratios):5.2f})  "
              f"{max(medians) / min(medians):12.2f}x {max(means) / min(means):10.2f}x")


if __name__ == "__main__":
    main(sys.argv[1:])
