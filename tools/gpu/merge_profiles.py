#!/usr/bin/env python3
"""Merges GPU profile exports of one device (`epochcost profile export --device gpu`) into one.

    tools/gpu/merge_profiles.py BASE.json [--rows FILE.json]... [--host FILE.json]... > OUT.json

Starts from BASE's rows and microbenchmarks. Each --rows FILE replaces BASE's rows by FILE's rows
that have a host time (host_s: measured by a profiler that records it), whole; each --host FILE
only adds the host time of FILE's rows to rows that have none yet, keeping their op times (a
profiler that recorded host times but timed ops at the host's issue rate, before 2026-11-26's
hold). Files are applied in the order given, --rows before --host. Every file must be of the
same device (model and library); rows are matched by signature and thread count.
"""
import argparse
import json
import sys


def load(path):
    with open(path) as f:
        doc = json.load(f)
    if doc.get("format") != "epochcost-profile":
        sys.exit("%s: not an epochcost profile" % path)
    return doc


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("base")
    ap.add_argument("--rows", action="append", default=[])
    ap.add_argument("--host", action="append", default=[])
    a = ap.parse_args()
    base = load(a.base)
    rows = {(m["signature"], m["threads"]): m for m in base["measurements"]}
    for path, whole in [(p, True) for p in a.rows] + [(p, False) for p in a.host]:
        doc = load(path)
        for key in ("model", "library"):
            if doc["device"][key] != base["device"][key]:
                sys.exit("%s: device.%s differs from %s's" % (path, key, a.base))
        for m in doc["measurements"]:
            k = (m["signature"], m["threads"])
            if "host_s" not in m:
                continue
            if whole or k not in rows:
                rows[k] = m
            elif "host_s" not in rows[k]:
                rows[k] = dict(rows[k], host_s=m["host_s"])
    base["measurements"] = sorted(rows.values(), key=lambda m: (m["threads"], m["signature"]))
    json.dump(base, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
