#!/usr/bin/env python3
"""Would a CPU calibration fit better with a per-op cost per extra thread? A study, not a tool the
product uses (docs/calibration.md, "A per-thread term, measured").

For every run of the shipped PyTorch CPU logs (data/validation/dev-cpu-*.csv) it asks
`epochcost predict --json` for the step's kernel seconds K and op count N, then fits, by least
squares on relative errors as `epochcost calibrate` does (without its bounds), the step time
  A: s*K + o*N + p                     (the shipped calibration's form)
  B: s*K + o*N + p + o2*N*(threads-1)  (one more parameter)
  D: A fitted apart for each thread count
and prints the held-out MAPE (5 folds by run index, and one log held out at a time), overall and
per thread count. Needs numpy (Debian's python3-numpy). Usage:
  tools/validation/thread_term_study.py build/cli/epochcost
"""
import sys

import numpy as np

from study_runs import fit, predict_rows


def features(r, form):
    x = [r["K"], r["N"], 1.0]
    if form == "B":
        x.append(r["N"] * (r["T"] - 1))
    return np.array(x), r["measured"] / r["steps"]


def report(name, errors, rows):
    by = lambda t: np.mean([e for i, e in errors.items() if rows[i]["T"] == t])
    print("%-34s %5.1f%%  1 thread %5.1f%%  2 threads %5.1f%%" %
          (name, np.mean(list(errors.values())), by(1), by(2)))


def main():
    rows = predict_rows(sys.argv[1])
    for form in ("A", "B", "D"):
        for split, key in (("5 folds", lambda i, r: i % 5), ("one log held out", lambda i, r: r["log"])):
            errors = {}
            for k in sorted(set(key(i, r) for i, r in enumerate(rows))):
                held = [i for i, r in enumerate(rows) if key(i, r) == k]
                groups = [(None, [r for i, r in enumerate(rows) if key(i, r) != k])]
                if form == "D":
                    groups = [(t, [r for r in groups[0][1] if r["T"] == t]) for t in (1, 2)]
                for t, train in groups:
                    beta = fit(train, lambda r: features(r, "A" if form == "D" else form))
                    for i in held:
                        if t is None or rows[i]["T"] == t:
                            x, y = features(rows[i], "A" if form == "D" else form)
                            errors[i] = abs(x @ beta / y - 1) * 100
            report("%s, %s (%d runs)" % (form, split, len(rows)), errors, rows)


if __name__ == "__main__":
    main()
