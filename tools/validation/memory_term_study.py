#!/usr/bin/env python3
"""Which memory term should a CPU calibration have? A study, not a tool the product uses
(docs/calibration.md, "Memory passes, measured").

For every run of the shipped PyTorch CPU logs (data/validation/dev-cpu-*.csv) it asks
`epochcost predict --json` for the step's kernel seconds K, op count N and the bytes its ops move
G (each op's `bytes`, OpSignature::bytes), then fits, by least squares on relative errors as
`epochcost calibrate` does (without its bounds and its inner choice of terms), the step time
  A:    s*K + o*N + p                 (the form before the seventeenth session)
  F:    s*K + o*N + m*G               (a cost per GB moved)
  E:    s*K + o*N + p + m*G
  Fbw1: s*K + o*N + f*G/BW1           (f: passes over the traffic at the device's 1-thread triad
                                       bandwidth, BW1, from its shipped profile)
  Fbw:  s*K + o*N + f*G/BWT           (the same at the run's own thread count's bandwidth: the
                                       memory passes `epochcost calibrate` fits)
  Ebw:  s*K + o*N + p + f*G/BWT
and prints the held-out MAPE (5 folds by run index, one log held out, one model held out),
overall and per thread count, then the 1-thread carry of effect.calibration_carries_to_another_vm
(fitted on the first two VMs' 1-thread runs, each Zen 4 log's 1-thread runs predicted). Needs
numpy (Debian's python3-numpy). Usage:
  tools/validation/memory_term_study.py build/cli/epochcost
"""
import os
import sys

import numpy as np

from study_runs import fit, predict_rows, print_held_out

FORMS = {"A": ["K", "N", "1"], "F": ["K", "N", "G"], "E": ["K", "N", "1", "G"],
         "Fbw1": ["K", "N", "G/BW1"], "Fbw": ["K", "N", "G/BWT"], "Ebw": ["K", "N", "1", "G/BWT"]}


def features(r, form):
    value = {"1": 1.0, "G/BW1": r["G"] / r["BW1"], "G/BWT": r["G"] / r["BWT"]}
    return np.array([value.get(k, r.get(k)) for k in FORMS[form]]), r["measured"] / r["steps"]


def error(r, form, beta):
    x, y = features(r, form)
    return abs(x @ beta / y - 1) * 100


def main():
    rows = predict_rows(sys.argv[1])
    for form in FORMS:
        print("%s: fitted on all %d runs: %s" % (form, len(rows), " ".join(
            "%s=%.4g" % (k, v)
            for k, v in zip(FORMS[form], fit(rows, lambda r: features(r, form))))))
        print_held_out(rows, lambda r: features(r, form))
    first_two = ("dev-cpu-pytorch.csv", "dev-cpu-pytorch-avx2.csv")
    train = [r for r in rows if r["T"] == 1 and os.path.basename(r["log"]) in first_two]
    for form in FORMS:
        beta = fit(train, lambda r: features(r, form))
        per_log = []
        for log in ("zen4", "zen4-rerun", "zen4-third", "zen4-fourth", "zen4-fifth", "zen4-sixth",
                    "zen4-seventh"):
            held = [r for r in rows
                    if r["T"] == 1 and r["log"].endswith("dev-cpu-pytorch-%s.csv" % log)]
            per_log.append(np.mean([error(r, form, beta) for r in held]))
        print("carried to the Zen 4 logs, 1 thread, %-4s %s  mean %.1f%%" %
              (form, " ".join("%.1f%%" % e for e in per_log), np.mean(per_log)))


if __name__ == "__main__":
    main()
