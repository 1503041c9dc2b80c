"""Shared by the calibration studies (thread_term_study.py, memory_term_study.py): the terms of
every shipped PyTorch CPU run as `epochcost predict --json` gives them, and a least-squares fit
on relative errors as `epochcost calibrate` does (without its bounds and inner choice of terms).
"""
import csv
import glob
import json
import os
import subprocess
import tempfile

import numpy as np

# The shipped profile of the VM each log was measured on (data/profiles, data/validation/SOURCE.md).
PROFILE_OF_LOG = {"zen4": "dev-cpu-amd-epyc-zen4", "avx2": "dev-cpu-amd-epyc-avx2",
                  "": "dev-cpu-amd-epyc"}


def triad(profile):
    """The profile's triad bandwidth (bytes/s) by thread count."""
    d = json.load(open("data/profiles/%s.json" % profile))
    return {m["threads"]: m["value"] for m in d["microbenchmarks"]
            if m["name"] == "triad_bytes_per_second"}


# ATen runs element-wise work on its OpenMP threads only from this many values on.
GRAIN_SIZE = 32768


def pools(signature):
    """Which thread pool a call of `signature` wakes at more than one thread: "blas" for an fp32
    dense product PyTorch hands to the system BLAS (`aten=1`), "openmp" for an op over at least
    GRAIN_SIZE values (its largest operand, as the signature gives it), None otherwise."""
    kind, *pairs = signature.split()
    d = dict(p.split("=", 1) for p in pairs)
    n = lambda *keys: int(np.prod([int(d.get(k, 1)) for k in keys]))
    if kind.startswith("ip_") and d.get("aten") == "1" and d.get("dt") == "f32":
        return "blas"
    if "n" in d:
        size = int(d["n"])
    elif kind.startswith("ip_"):
        size = max(n("mb", "ic"), n("mb", "oc"))
    elif kind.startswith("conv"):
        size = max(n("mb", "ic", "ih", "iw"), n("mb", "oc", "oh", "ow"))
    elif kind.startswith("pool"):
        size = n("mb", "c", "ih", "iw")
    elif kind == "reorder":
        size = n("mb", "c", "h", "w")
    else:
        size = n("rows", "c", "dim")
    return "openmp" if size >= GRAIN_SIZE else None


def predict_rows(epochcost):
    """One row per run of data/validation/dev-cpu-*.csv: its log, model, threads T, steps per
    epoch, the step's kernel seconds K, op calls N and bytes moved G (the ops' `bytes`), the
    triad bandwidth of its VM at 1 thread (BW1) and at T (BWT), the step's calls that wake the
    BLAS's threads (BLAS) and ATen's OpenMP threads (OMP), and the measured seconds."""
    tmp = tempfile.mkdtemp()
    env = dict(os.environ, EPOCHCOST_PROFILES=tmp + "/p.sqlite",
               EPOCHCOST_CATALOG=tmp + "/c.sqlite")
    rows = []
    for f in sorted(glob.glob("data/validation/dev-cpu-*.csv")):
        bw = triad(PROFILE_OF_LOG["zen4" if "zen4" in f else "avx2" if "avx2" in f else ""])
        for r in csv.DictReader(open(f)):
            out = subprocess.run(
                [epochcost, "predict", r["model"], "--on", r["target"], "--threads", r["threads"],
                 "--batch", r["batch"], "--precision", r["precision"], "--samples", r["samples"],
                 "--val-samples", r["val_samples"] or "0", "--optimizer", r["optimizer"],
                 "--json"], capture_output=True, text=True, env=env, check=True).stdout
            d = json.loads(out)
            t = int(r["threads"])
            rows.append({"log": f, "model": r["model"], "T": t, "steps": d["steps_per_epoch"],
                         "K": sum(o["seconds"] * o["count"] for o in d["ops"]),
                         "N": sum(o["count"] for o in d["ops"]),
                         "G": sum(o["bytes"] * o["count"] for o in d["ops"]),
                         "BLAS": sum(o["count"] for o in d["ops"]
                                     if pools(o["signature"]) == "blas"),
                         "OMP": sum(o["count"] for o in d["ops"]
                                    if pools(o["signature"]) == "openmp"),
                         "BW1": bw[1], "BWT": bw[t],
                         "measured": float(r["seconds_per_epoch"])})
    return rows


# The held-out splits the studies report: 5 folds by run index, one log out, one model out.
SPLITS = (("5 folds", lambda i, r: i % 5), ("one log out", lambda i, r: r["log"]),
          ("one model out", lambda i, r: r["model"]))


def print_held_out(rows, features):
    """For each split of SPLITS, fits on the other groups, predicts each held-out run and prints
    the MAPE overall and per thread count."""
    for split, key in SPLITS:
        errors = {}
        for k in sorted(set(key(i, r) for i, r in enumerate(rows))):
            beta = fit([r for i, r in enumerate(rows) if key(i, r) != k], features)
            for i, r in enumerate(rows):
                if key(i, r) == k:
                    x, y = features(r)
                    errors[i] = abs(x @ beta / y - 1) * 100
        by = lambda t: np.mean([e for i, e in errors.items() if rows[i]["T"] == t])
        print("  %-14s %5.1f%%  1 thread %5.1f%%  2 threads %5.1f%%" %
              (split, np.mean(list(errors.values())), by(1), by(2)))


def fit(rows, features):
    """Least squares on relative errors: features(row) gives (x, measured step seconds)."""
    xs, ys = zip(*(features(r) for r in rows))
    a = np.array([x / y for x, y in zip(xs, ys)])
    beta, *_ = np.linalg.lstsq(a, np.ones(len(rows)), rcond=None)
    return beta
