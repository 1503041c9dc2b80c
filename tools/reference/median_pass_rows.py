#!/usr/bin/python3
"""Puts into a profile store, for every row it holds, the row of the same device, thread count
and signature from whichever of the stores given has the median mean: the rule by which the
shipped Zen 4 (2026-11-29) and Zen 5 (2026-12-01) profiles were made from three in-step passes
(data/profiles/SOURCE.md). A row is taken whole (median, p10, p90, mean, count, date) from the
pass it comes from; a row some store lacks stays as it is; microbenchmarks are not touched.

    cp first.sqlite second.sqlite; epochcost profile ... --in-step --force --profiles second.sqlite
    cp first.sqlite third.sqlite;  epochcost profile ... --in-step --force --profiles third.sqlite
    tools/reference/median_pass_rows.py first.sqlite second.sqlite third.sqlite

An odd number of stores (the first is written); prints how many rows each store gave, and how
many were the same in all of them (rows the later passes did not measure again).
"""
import argparse
import os
import sqlite3
import sys

COLUMNS = ["median_s", "p10_s", "p90_s", "count", "measured_at", "mean_s", "host_s", "in_step"]
MEDIAN, MEAN = COLUMNS.index("median_s"), COLUMNS.index("mean_s")


def rows(path):
    if not os.path.isfile(path):
        sys.exit("median_pass_rows.py: %s: no such profile store" % path)
    db = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    try:
        db.execute("SELECT 1 FROM measurements LIMIT 1")
    except sqlite3.DatabaseError as e:
        sys.exit("median_pass_rows.py: %s: not a profile store (%s)" % (path, e))
    out = {}
    for r in db.execute("SELECT device, threads, signature, %s FROM measurements"
                        % ", ".join(COLUMNS)):
        out[r[:3]] = r[3:]
    db.close()
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("stores", nargs="+", help="profile stores; the first is written")
    args = ap.parse_args()
    if len(args.stores) % 2 == 0:
        sys.exit("median_pass_rows.py: give an odd number of stores, got %d" % len(args.stores))
    passes = [rows(p) for p in args.stores]
    taken = [0] * len(passes)
    same = 0
    chosen = {}
    for key in passes[0]:
        if not all(key in p for p in passes):
            continue
        if all(p[key] == passes[0][key] for p in passes):
            same += 1  # not measured again in the later passes (another precision's rows)
            continue
        # The mean a step sums (the median where a row has none), ties to the earlier store.
        def mean(i):
            r = passes[i][key]
            return r[MEAN] if r[MEAN] is not None else r[MEDIAN]
        order = sorted(range(len(passes)), key=lambda i: (mean(i), i))
        k = order[len(order) // 2]
        taken[k] += 1
        chosen[key] = passes[k][key]
    db = sqlite3.connect(args.stores[0])
    with db:
        for (device, threads, signature), r in chosen.items():
            db.execute("UPDATE measurements SET %s WHERE device=? AND threads=? AND signature=?"
                       % ", ".join(c + "=?" for c in COLUMNS), (*r, device, threads, signature))
    db.close()
    for path, n in zip(args.stores, taken):
        print("%s: %d rows" % (path, n))
    print("the same in every store: %d rows" % same)


if __name__ == "__main__":
    main()
