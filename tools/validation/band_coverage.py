#!/usr/bin/python3
"""How often a real run's epoch falls inside `predict`'s band, the epoch with every op at its own
10th and at its 90th percentile time (JSON step_p10_seconds, step_p90_seconds): for every CPU run
of the run logs given that names a profiled device (`device:...`), `epochcost predict` of its
configuration, uncalibrated, from the profiles in the store. The band is the spread of the
measurements behind a prediction, not a confidence interval (docs/profiles.md); this says how
far it is from one. Analysis only.

    tools/validation/band_coverage.py [--epochcost build/cli/epochcost] LOG...

docs/accuracy.md, "The fastest thread count".
"""
import argparse
import csv
import json
import subprocess


def band(epochcost, run):
    """(low, predicted, high) epoch seconds for a run-log row, or None where predict refuses."""
    command = [epochcost, "predict", run["model"], "--on", run["target"], "--threads",
               run["threads"], "--batch", run["batch"], "--samples", run["samples"],
               "--val-samples", run["val_samples"], "--precision", run["precision"], "--json"]
    if run.get("optimizer"):
        command += ["--optimizer", run["optimizer"]]
    if run.get("allocator") == "keeps":
        command += ["--allocator", "keeps"]
    out = subprocess.run(command, capture_output=True, text=True)
    if out.returncode != 0:
        return None
    p = json.loads(out.stdout)
    evaluation = p["eval_steps"] * p["eval_step_seconds"]
    return (p["steps_per_epoch"] * p["step_p10_seconds"] + evaluation, p["epoch_seconds"],
            p["steps_per_epoch"] * p["step_p90_seconds"] + evaluation)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochcost", default="build/cli/epochcost")
    ap.add_argument("logs", nargs="+")
    a = ap.parse_args()
    bands = {}
    counts = {}  # (model, threads, allocator) -> [inside, runs]
    for log in a.logs:
        for run in csv.DictReader(open(log, newline="")):
            if not run["target"].startswith("device:") or run.get("gpus"):
                continue
            key = tuple(run.get(k, "") for k in ("model", "target", "batch", "precision",
                                                  "optimizer", "threads", "samples",
                                                  "val_samples", "allocator"))
            if key not in bands:
                bands[key] = band(a.epochcost, run)
            if bands[key] is None:
                continue
            low, _, high = bands[key]
            group = (run["model"], run["threads"], run.get("allocator") or "returns")
            c = counts.setdefault(group, [0, 0])
            c[0] += low <= float(run["seconds_per_epoch"]) <= high
            c[1] += 1
    for allocator in ("keeps", "returns"):
        inside = sum(c[0] for g, c in counts.items() if g[2] == allocator)
        runs = sum(c[1] for g, c in counts.items() if g[2] == allocator)
        print("allocator %s: %d of %d runs inside the band" % (allocator, inside, runs))
    for (model, threads, allocator), (inside, runs) in sorted(counts.items()):
        plural = "" if threads == "1" else "s"
        print("  %-24s %s thread%s %-8s %3d of %3d" % (model, threads, plural, allocator, inside,
                                                       runs))


if __name__ == "__main__":
    main()
