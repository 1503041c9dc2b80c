#!/usr/bin/env python3
"""How much of the gap between `predict` and PyTorch's step is page faults? A study, not a tool
the product uses (docs/accuracy.md, "A Zen 5 VM whose page faults cost 11 us").

For each run of a run log written by the harness on this machine (its source holds the minor
page faults per timed step, `getrusage`), prints the measured and predicted step, their gap,
and the faults times this CPU's `page_fault_seconds` at the run's thread count (the profile's
microbenchmark, read from `epochcost profile export -`): what the faults would cost if each
took what a fresh 4 KiB page takes in the microbenchmark. epochcost does not add this term: the
faults per step are the allocator's and the heap's history, not the model's (docs/accuracy.md).
Usage:
  tools/validation/page_fault_share.py EPOCHCOST LOG.csv [--profiles STORE]
"""
import csv
import json
import re
import subprocess
import sys


def main():
    binary, log, extra = sys.argv[1], sys.argv[2], sys.argv[3:]
    runs = json.loads(subprocess.run([binary, "validate", log, "--json", *extra], check=True,
                                     capture_output=True, text=True).stdout)["runs"]
    profile = json.loads(subprocess.run([binary, "profile", "export", "-", *extra], check=True,
                                        capture_output=True, text=True).stdout)
    fault = {b["threads"]: b["value"] for b in profile["microbenchmarks"]
             if b["name"] == "page_fault_seconds"}
    if not fault:
        sys.exit(f"{binary}: this CPU's profile has no page_fault_seconds; run epochcost profile")
    print("model | threads | faults/step | measured ms | predicted ms | gap ms | faults x cost ms"
          " | gap left ms")
    for row, run in zip(csv.DictReader(open(log)), runs):
        source = row["source"]
        faults = int(re.search(r"(\d+) minor page faults per step", source).group(1))
        steps = int(re.search(r"x (\d+) steps", source).group(1))
        measured = run["measured_seconds_per_epoch"] / steps * 1e3
        predicted = run["predicted_seconds_per_epoch"] / steps * 1e3
        cost = faults * fault[int(row["threads"])] * 1e3
        gap = measured - predicted
        print(f"{row['model']} | {row['threads']} | {faults} | {measured:.2f} | {predicted:.2f}"
              f" | {gap:.2f} | {cost:.2f} | {gap - cost:.2f}")


if __name__ == "__main__":
    main()
