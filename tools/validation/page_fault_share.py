#!/usr/bin/env python3
"""How much of the gap between `predict` and PyTorch's step is page faults? A study, not a tool
the product uses (docs/accuracy.md, "A Zen 5 VM whose page faults cost 11 us").

`epochcost validate` prices the faults of runs that state `faults_per_step` at the profiled CPU's
`page_fault_seconds` (its JSON `page_faults`, docs/run-logs.md); this prints the same per step
beside the gap between the measured and predicted step, and the gap left. The harness's epochs
are training steps only (ceil(samples / batch) of them, no validation pass), read from the log.
epochcost does not add the term to a prediction: the faults per step are the allocator's and the
heap's history, not the model's (docs/accuracy.md).
Usage:
  tools/validation/page_fault_share.py EPOCHCOST LOG.csv [validate options, e.g. --profiles STORE]
"""
import csv
import json
import subprocess
import sys


def main():
    binary, log, extra = sys.argv[1], sys.argv[2], sys.argv[3:]
    runs = json.loads(subprocess.run([binary, "validate", log, "--json", *extra], check=True,
                                     capture_output=True, text=True).stdout)["runs"]
    print("model | threads | faults/step | measured ms | predicted ms | gap ms | faults x cost ms"
          " | gap left ms")
    with open(log, newline="") as f:
        rows = list(csv.DictReader(f))
    for row, run in zip(rows, runs):  # validate reports runs in the log's order
        faults = run.get("page_faults")
        if faults is None:
            continue  # no faults_per_step, or no page_fault_seconds in the profile
        steps = -(-int(row["samples"]) // int(row["batch"]))
        measured, predicted, cost = (seconds / steps * 1e3 for seconds in (
            run["measured_seconds_per_epoch"], run["predicted_seconds_per_epoch"],
            faults["seconds_per_epoch"]))
        gap = measured - predicted
        print(f"{row['model']} | {row['threads']} | {faults['faults_per_step']} | {measured:.2f} |"
              f" {predicted:.2f} | {gap:.2f} | {cost:.2f} | {gap - cost:.2f}")


if __name__ == "__main__":
    main()
