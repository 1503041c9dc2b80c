#!/usr/bin/python3
"""Compares candidate calibration models on a run log by the same 5-fold cross-validation
`epochcost calibrate` uses (run i in fold i % 5, least squares on relative errors), before one is
built into the product. Each run's step is reduced to the two terms the product's correction acts
on, read from `epochcost predict --json` on the run's device: K, the sum of the measured kernel
times, and N, the number of op calls (and 1 for a cost per step). Prints each model's held-out MAPE, worst error and
parameters fitted on all runs. Analysis only; needs numpy (Debian: python3-numpy).

    /usr/bin/python3 tools/validation/calibration_models.py [BUILD_DIR] [RUN_LOG] [DEVICE]
    (defaults: build data/validation/dev-cpu-pytorch.csv "device:AMD EPYC")
"""
import csv
import json
import subprocess
import sys

import numpy as np

FOLDS = 5


def step_terms(binary, run, device):
    out = subprocess.check_output(
        [binary, "predict", run["model"], "--on", device, "--threads", run["threads"],
         "--batch", run["batch"], "--optimizer", run["optimizer"], "--json"])
    p = json.loads(out)
    kernels = sum(op["count"] * op["seconds"] for op in p["ops"])
    calls = sum(op["count"] for op in p["ops"])
    measured_step = float(run["seconds_per_epoch"]) / p["steps_per_epoch"]
    return {"model": run["model"], "threads": int(run["threads"]), "K": kernels, "N": calls,
            "measured": measured_step}


def fit(runs, features):
    x = np.array([[f(r) / r["measured"] for f in features] for r in runs])
    coef, *_ = np.linalg.lstsq(x, np.ones(len(runs)), rcond=None)
    return coef


def cross_validate(runs, features):
    errors = []
    for fold in range(FOLDS):
        train = [r for i, r in enumerate(runs) if i % FOLDS != fold]
        coef = fit(train, features)
        for r in (r for i, r in enumerate(runs) if i % FOLDS == fold):
            predicted = sum(c * f(r) for c, f in zip(coef, features))
            errors.append(abs(predicted / r["measured"] - 1))
    return 100 * np.mean(errors), 100 * max(errors), fit(runs, features)


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    log = sys.argv[2] if len(sys.argv) > 2 else "data/validation/dev-cpu-pytorch.csv"
    device = sys.argv[3] if len(sys.argv) > 3 else "device:AMD EPYC"
    with open(log, newline="") as f:
        runs = [step_terms(build + "/cli/epochcost", r, device) for r in csv.DictReader(f)]
    thread_counts = sorted({r["threads"] for r in runs})

    def per_threads(term):
        return [lambda r, t=t: r[term] * (r["threads"] == t) for t in thread_counts]

    models = {
        "kernel scale + per-op overhead (the product's)": [lambda r: r["K"], lambda r: r["N"]],
        "kernel scale per thread count + per-op overhead": per_threads("K") + [lambda r: r["N"]],
        "kernel scale + per-op overhead per thread count": [lambda r: r["K"]] + per_threads("N"),
        "both per thread count": per_threads("K") + per_threads("N"),
        # A fixed cost per training step (the product's third parameter since 2026-11-24).
        "kernel scale + per-op overhead + per-step overhead": [lambda r: r["K"], lambda r: r["N"],
                                                              lambda r: 1.0],
        "kernel scale + per-step overhead": [lambda r: r["K"], lambda r: 1.0],
    }
    for name, features in models.items():
        mape, worst, coef = cross_validate(runs, features)
        print(f"{name:50s} held-out MAPE {mape:5.1f}%  worst {worst:5.1f}%  fitted "
              + ", ".join(f"{c:.4g}" for c in coef))


if __name__ == "__main__":
    main()
