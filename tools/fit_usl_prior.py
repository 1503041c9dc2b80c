#!/usr/bin/python3
"""Fits the CPU scalability prior (engine/machine.cpp: UslPrior) to the many-vCPU runs shipped in
data/validation/published-runs.csv (Woolf 2017: GCE n1-highcpu-8/16/32/64, Keras on two TensorFlow 1.2.1
builds; every model and build with all four sizes is a series).

A 2-vCPU development machine can fit the USL's alpha from its thread sweep but cannot see the
contention term beta, which only shows at many cores. This fits speedup(n) = n / (1 + alpha(n-1) +
beta n(n-1)) over effective cores (vCPUs / 2 x 1.25, engine/machine.cpp's hyperthread rule) to
every series' T(n)/T(8) by least squares in log space (grid search; alpha step 0.001, beta step
0.00005). Prints alpha, beta, the peak and the fitted against the measured median ratios.

    python3 tools/fit_usl_prior.py
"""
import collections
import csv
import math
import os

HYPERTHREAD_GAIN = 0.25  # engine/machine.h kHyperthreadGain


def effective(vcpus):
    return vcpus / 2 * (1 + HYPERTHREAD_GAIN)


def speedup(n, a, b):
    return n / (1 + a * (n - 1) + b * n * (n - 1))


def main():
    path = os.path.join(os.path.dirname(__file__), "..", "data", "validation",
                        "published-runs.csv")
    series = collections.defaultdict(dict)
    for r in csv.DictReader(open(path)):
        if "highcpu" in r["target"]:
            vcpus = int(r["target"].rsplit("-", 1)[1])
            series[(r["model"], r["framework_version"])][vcpus] = float(r["seconds_per_epoch"])
    series = {k: v for k, v in series.items() if all(n in v for n in (8, 16, 32, 64))}
    best = None
    for ai in range(0, 301):
        a = ai / 1000
        for bi in range(0, 401):
            b = bi * 0.00005
            sse = sum(math.log(speedup(effective(8), a, b) / speedup(effective(n), a, b)
                               / (v[n] / v[8])) ** 2
                      for v in series.values() for n in (16, 32, 64))
            if best is None or sse < best[0]:
                best = (sse, a, b)
    sse, a, b = best
    print("%d series; alpha %.3f beta %.5f (sum of squared log errors %.3f); speedup peaks at "
          "%.1f effective cores" % (len(series), a, b, sse, math.sqrt((1 - a) / b)))
    for n in (16, 32, 64):
        meas = sorted(v[n] / v[8] for v in series.values())
        print("T(%d)/T(8): fitted %.2f, measured median %.2f" %
              (n, speedup(effective(8), a, b) / speedup(effective(n), a, b),
               meas[len(meas) // 2]))


if __name__ == "__main__":
    main()
