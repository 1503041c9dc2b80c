#!/usr/bin/env bash
# The calibration carries to runs it was not fitted to (issue 7: "<= 5% calibrated"). The
# 1-thread rows of the development VM's harness log (@dev-cpu-pytorch-avx2) are calibrated
# (kernel scale, per-op and per-step overhead; docs/calibration.md), then the 1-thread rows of a
# later run of the same harness on the same VM (@dev-cpu-pytorch-avx2-rerun, measured after the
# fit) are predicted with that calibration. docs/accuracy.md gives every figure: held-out MAPE
# 4.1%, worst -11.0% (lstm_text_generation, whose PyTorch step itself moved from 115 to 128 ms
# between the two runs).
#
# Asserted: calibrated MAPE at most 5% on the later run's six 1-thread runs, and better than
# uncalibrated. Both logs are fixed data, so this guards the fit and the prediction, not timing.
# Usage: calibration_heldout_rerun.sh EPOCHCOST
source "$(dirname "$0")/lib/setup.sh"
logs=$(cd "$(dirname "$0")/../../data/validation" && pwd)

one_thread "$logs/dev-cpu-pytorch-avx2.csv" "$dir/fit.csv"
one_thread "$logs/dev-cpu-pytorch-avx2-rerun.csv" "$dir/later.csv"

"$bin" calibrate "$dir/fit.csv" --folds 6
before=$("$bin" validate "$dir/later.csv" | mape)
after=$("$bin" validate "$dir/later.csv" --calibrated | mape)
echo "later run, 1 thread: MAPE ${before}% uncalibrated, ${after}% calibrated"
awk -v b="$before" -v a="$after" 'BEGIN { exit !(a <= 5 && a < b) }' ||
  { echo "calibrated MAPE should be at most 5% and below the uncalibrated" >&2; exit 1; }
