#!/usr/bin/env python3
"""Merges the run logs of several harness rounds into one: each run (model, target, batch,
precision, optimizer, threads, GPUs) once, at the median of its rounds' seconds per epoch.

On a shared VM the same PyTorch step moves by 10-30% between runs minutes apart
(docs/accuracy.md), so tools/reference/harness_runs.sh with ROUNDS=N measures every run N times,
round after round over all of them, and writes this merge. The merged run keeps the round whose
time is the median (the lower of the two middle ones for an even N) and says in its `source`
every round's seconds per epoch, so the spread stays on record.

    median_of_rounds.py ROUND1.csv ROUND2.csv ... > OUT.csv
"""
import csv
import sys

KEY = ("model", "target", "batch", "precision", "optimizer", "threads", "gpus")


def main():
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    header, runs, order = None, {}, []
    for path in sys.argv[1:]:
        with open(path, newline="") as f:
            rows = list(csv.reader(f))
        if not rows:
            raise SystemExit("%s: empty run log" % path)
        if header is None:
            header = rows[0]
        elif rows[0] != header:
            raise SystemExit("%s: its columns differ from %s's" % (path, sys.argv[1]))
        col = {name: i for i, name in enumerate(header)}
        for line, row in enumerate(rows[1:], start=2):
            if len(row) != len(header):
                raise SystemExit("%s:%d: %d fields, the header has %d"
                                 % (path, line, len(row), len(header)))
            key = tuple(row[col[k]] for k in KEY)
            if key not in runs:
                runs[key] = []
                order.append(key)
            runs[key].append(row)
    col = {name: i for i, name in enumerate(header)}
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(header)
    for key in order:
        rounds = sorted(runs[key], key=lambda r: float(r[col["seconds_per_epoch"]]))
        median = dict(enumerate(rounds[(len(rounds) - 1) // 2]))
        times = ", ".join(r[col["seconds_per_epoch"]]
                          for r in runs[key])  # in the order measured
        median[col["source"]] = ("median of %d rounds (s/epoch, in order: %s); the median "
                                 "round: %s" % (len(rounds), times, median[col["source"]]))
        out.writerow([median[i] for i in range(len(header))])


if __name__ == "__main__":
    main()
