#!/usr/bin/env python3
"""How close can any prediction come to the shipped Zen 4 PyTorch logs? A bound, not a tool the
product uses (docs/accuracy.md, "Products after their input's parallel pass").

The fp32 Zen 4 logs (data/validation/dev-cpu-pytorch-zen4*.csv, bf16 and autocast left out;
eight when this was written, nine since @dev-cpu-pytorch-zen4-seventh-lr) measured the same six
models at the same settings on VMs of one kind. A prediction gives
one number per model and thread count on that kind of VM, so its MAPE over the eight logs is at
least that of the best constant for each (model, threads): the constant c minimising the mean of
|c / x - 1| over the eight measured x, the median of the x weighted by 1 / x (as `epochcost
validate` computes it for its "Repeated runs", validation/statistics.h BestSingleValue). Prints
each (model, threads) with its measurements and floor, and the mean floor per thread count.
Usage:
  tools/validation/noise_floor.py
"""
import csv
import glob
import statistics


def floor(values):
    """The least mean |c / x - 1| over constants c: at c, the median weighted by 1 / x."""
    total, below = sum(1 / x for x in values), 0
    for c in sorted(values):
        below += 1 / c
        if below >= total / 2:
            return sum(abs(c / x - 1) for x in values) / len(values)


def main():
    measured = {}
    for path in sorted(glob.glob("data/validation/dev-cpu-pytorch-zen4*.csv")):
        for row in csv.DictReader(open(path)):
            if row["precision"] != "fp32":
                continue
            key = (row["model"], int(row["threads"]))
            measured.setdefault(key, []).append(float(row["seconds_per_epoch"]))
    for threads in (1, 2):
        floors = []
        for (model, t), values in sorted(measured.items()):
            if t != threads:
                continue
            floors.append(floor(values))
            print("%-24s %d thread(s), %d logs: %s s; floor %.1f%%" % (
                model, t, len(values), " ".join("%.2f" % v for v in values), floors[-1] * 100))
        print("%d thread(s): mean floor %.1f%%" % (threads, 100 * statistics.mean(floors)))


if __name__ == "__main__":
    main()
