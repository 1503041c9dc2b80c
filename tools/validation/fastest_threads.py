#!/usr/bin/python3
"""Checks `predict`'s "faster at T threads" line against real runs: for every run log given and
every configuration it measured at both 1 and 2 threads (same model, precision, optimizer and
allocator), whether the thread count `predict` would name as faster (its predicted epoch at
least 1.05x as fast as the one asked for, cli/predict_command.cpp kFasterThreads) was the faster
one in the runs, and by how much. The predictions are `epochcost validate LOG --json`'s,
uncalibrated (with --calibrated, as `validate --calibrated` applies the stored or shipped
calibrations), from the profiles in the store (the shipped ones by default). Analysis only.

    tools/validation/fastest_threads.py [--epochcost build/cli/epochcost] [--calibrated] LOG...

docs/accuracy.md, "The fastest thread count".
"""
import argparse
import csv
import json
import statistics
import subprocess

FASTER = 1.05  # cli/predict_command.cpp, kFasterThreads


def pairs(epochcost, log, calibrated):
    """(model, {threads: (predicted, measured)}) for each configuration run at 1 and 2 threads."""
    command = [epochcost, "validate", log, "--json"] + (["--calibrated"] if calibrated else [])
    out = subprocess.run(command, capture_output=True, text=True)
    if out.returncode != 0:
        return []
    rows = list(csv.DictReader(open(log, newline="")))
    configs = {}
    for run in json.loads(out.stdout)["runs"]:
        if run.get("device_kind") != "cpu":
            continue
        row = rows[int(run["origin"].rsplit(":", 1)[1]) - 2]  # the header is line 1
        key = (run["model"], run["precision"], row.get("optimizer", ""), row.get("allocator", ""))
        configs.setdefault(key, {})[row["threads"]] = (run["predicted_seconds_per_epoch"],
                                                       run["measured_seconds_per_epoch"])
    return [(key[0], v) for key, v in configs.items() if "1" in v and "2" in v]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochcost", default="build/cli/epochcost")
    ap.add_argument("--calibrated", action="store_true")
    ap.add_argument("logs", nargs="+")
    a = ap.parse_args()
    found = [(log, model, v) for log in a.logs
             for model, v in pairs(a.epochcost, log, a.calibrated)]
    print("%d configurations at 1 and 2 threads in %d logs" %
          (len(found), len({log for log, _, _ in found})))
    for asked, other in (("2", "1"), ("1", "2")):
        named, right, speedups, wrong = 0, 0, [], []
        for log, model, v in found:
            if v[asked][0] < FASTER * v[other][0]:
                continue  # no line: the other count is not predicted 1.05x as fast
            named += 1
            if v[other][1] < v[asked][1]:
                right += 1
                speedups.append(v[asked][1] / v[other][1])
            else:
                wrong.append("%s %s (%.2fx as slow)" % (log.rsplit("/", 1)[-1], model,
                                                          v[other][1] / v[asked][1]))
        print("asked for %s: \"faster at %s\" named for %d, right for %d (measured speedup median "
              "%.2f)" % (asked, other, named, right,
                         statistics.median(speedups) if speedups else float("nan")))
        for w in wrong:
            print("  wrong: " + w)


if __name__ == "__main__":
    main()
