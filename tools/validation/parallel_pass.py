#!/usr/bin/env python3
"""Splits `epochcost validate`'s errors by where the run's vCPUs were: near or far apart.

On a 2-vCPU cloud VM the hypervisor moves a vCPU between host cores, and for spells of seconds
to minutes the two run on cores whose caches lie far apart: a cache line there and back took
~60 ns on the tenth Zen 4 VM, ~370 ns in those spells, and each of ATen's parallel passes
then cost 3.3 us beyond its work instead of 1.1 (docs/accuracy.md, "Near and far vCPUs"). The
reference harness (tools/reference/torch_step.py) measures that cost before and after a
multi-threaded CPU run's timed steps and writes "parallel pass X us before, Y us after" into
the run's source text. This reads validate's JSON, finds each run's row by its origin
(FILE:LINE), and prints the runs with those figures, each called near (both under --far-us),
far (both at or over it) or mixed (the VM moved during the run), and the MAPE of each group.
Not used by the product.
Usage:
  epochcost validate LOG.csv... --json > v.json
  tools/validation/parallel_pass.py v.json [--far-us 2.0]
"""
import argparse
import csv
import json
import re
import sys

PASS = re.compile(r"parallel pass ([0-9.]+) us before, ([0-9.]+) us after")


def source_text(origin, cache):
    """The source column of the run-log row that origin (FILE:LINE) names."""
    path, _, line = origin.rpartition(":")
    if not path or not line.isdigit():
        sys.exit(f"validate JSON: origin {origin!r} is not FILE:LINE")
    if path not in cache:
        try:
            with open(path, newline="") as f:
                cache[path] = list(csv.DictReader(f))
        except OSError as e:
            sys.exit(f"{path}: {e.strerror}")
    rows = cache[path]
    index = int(line) - 2  # line 1 is the header
    if not 0 <= index < len(rows):
        sys.exit(f"{path}:{line}: no such row (the file has {len(rows)} rows)")
    return rows[index].get("source") or ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("validate_json", help="epochcost validate --json output, or - for stdin")
    ap.add_argument("--far-us", type=float, default=2.0,
                    help="a parallel pass at least this many microseconds is a far one")
    a = ap.parse_args()
    if a.far_us <= 0:
        sys.exit(f"--far-us {a.far_us}: must be above 0")
    try:
        if a.validate_json == "-":
            doc = json.load(sys.stdin)
        else:
            with open(a.validate_json) as f:
                doc = json.load(f)
    except OSError as e:
        sys.exit(f"{a.validate_json}: {e.strerror}")
    except json.JSONDecodeError as e:
        sys.exit(f"{a.validate_json}:{e.lineno}: not JSON: {e.msg}")
    if not isinstance(doc, dict) or not isinstance(doc.get("runs"), list):
        sys.exit(f"{a.validate_json}: no 'runs' list (is it `epochcost validate --json`?)")
    cache, groups, lines = {}, {"near": [], "mixed": [], "far": []}, []
    for run in doc["runs"]:
        try:
            origin, error = run["origin"], float(run["error_percent"])
        except (KeyError, TypeError, ValueError):
            sys.exit(f"{a.validate_json}: a run without origin or error_percent")
        match = PASS.search(source_text(origin, cache))
        if not match:
            continue  # a 1-thread run, or one logged before the harness measured it
        before, after = float(match.group(1)), float(match.group(2))
        far = (before >= a.far_us) + (after >= a.far_us)
        state = ("near", "mixed", "far")[far]
        groups[state].append(error)
        lines.append(f"{origin:44} {run.get('model', ''):24} {before:7.2f} {after:7.2f} "
                     f"{state:6} {error:+6.1f}%")
    if not lines:
        sys.exit("no run's source gives its parallel pass (runs of torch_step.py since "
                 "2026-12-07 at more than one thread do)")
    print(f"{'run':44} {'model':24} {'before':>7} {'after':>7} {'state':6} {'error':>7}")
    print("\n".join(lines))
    for state, errors in groups.items():
        if errors:
            mape = sum(abs(e) for e in errors) / len(errors)
            mean = sum(errors) / len(errors)
            print(f"{state}: {len(errors)} runs, MAPE {mape:.1f}%, mean error {mean:+.1f}%")


if __name__ == "__main__":
    main()
