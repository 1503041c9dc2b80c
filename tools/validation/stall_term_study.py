#!/usr/bin/env python3
"""Would a CPU calibration fit the 2-thread runs better with a cost per stall-prone call? A
study, not a tool the product uses (docs/calibration.md, "A stall term, measured").

On the 2-vCPU VMs PyTorch's 2-thread steps lose scheduler slices where its two thread pools,
ATen's OpenMP threads and the BLAS's own, take turns on cores the other's idle threads are still
spinning or polling on (docs/accuracy.md, "Two threads", "Products after their input's parallel
pass"). For every run of the shipped PyTorch CPU logs (data/validation/dev-cpu-*.csv) it asks
`epochcost predict --json` for the step's kernel seconds K, op count N, bytes moved G, the calls
that wake the BLAS's threads (BLAS: fp32 `aten=1` dense products) and ATen's OpenMP threads (OMP:
ops over at least 32,768 values), and fits, by least squares on relative errors as `epochcost
calibrate` does (without its bounds and inner choice of terms), the step time
  Fbw:     s*K + o*N + f*G/BWT                 (the shipped calibration's form)
  +omp:    Fbw + c*OMP,  where T > 1 and the step has a BLAS product
  +blas:   Fbw + c*BLAS, where T > 1
  +pairs:  Fbw + c*min(OMP, BLAS), where T > 1
and prints the held-out MAPE (5 folds by run index, one log held out, one model held out),
overall and per thread count, with each form's in-sample error on the fp32 2-thread runs by model.
Needs numpy (Debian's python3-numpy). Usage:
  tools/validation/stall_term_study.py build/cli/epochcost
"""
import sys

import numpy as np

from study_runs import fit, predict_rows, print_held_out

FORMS = ("Fbw", "+omp", "+blas", "+pairs")


def features(r, form):
    x = [r["K"], r["N"], r["G"] / r["BWT"]]
    two = r["T"] > 1
    if form == "+omp":
        x.append(r["OMP"] * (two and r["BLAS"] > 0))
    elif form == "+blas":
        x.append(r["BLAS"] * two)
    elif form == "+pairs":
        x.append(min(r["OMP"], r["BLAS"]) * two)
    return np.array(x, dtype=float), r["measured"] / r["steps"]


def main():
    rows = predict_rows(sys.argv[1])
    for form in FORMS:
        beta = fit(rows, lambda r: features(r, form))
        print("%s: fitted on all %d runs: %s" % (form, len(rows), " ".join("%.4g" % b for b in beta)))
        print_held_out(rows, lambda r: features(r, form))
        by_model = {}
        for r in rows:
            if r["T"] == 2 and "bf16" not in r["log"]:
                x, y = features(r, form)
                by_model.setdefault(r["model"], []).append((x @ beta / y - 1) * 100)
        print("  in-sample, fp32 logs at 2 threads: " + ", ".join(
            "%s %+.0f%%" % (m, np.mean(v)) for m, v in sorted(by_model.items())))


if __name__ == "__main__":
    main()
