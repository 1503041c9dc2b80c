#!/usr/bin/env bash
# The shipped Zen 4 profile (data/profiles/dev-cpu-amd-epyc-zen4.json, every row timed inside the
# replayed step on a Zen 4 VM on 2026-11-29, each row its median of three passes) predicts the
# 1-thread runs of the nine harness logs that seven other VMs of that kind measured on
# 2026-11-24..26 (@dev-cpu-pytorch-zen4 ... -seventh-lr), uncalibrated: MAPE 9.0% to 12.2% a log,
# mean 10.9%, imdb_fasttext's page faults the most of it (docs/accuracy.md, "A Zen 4 profile
# timed in the step"). Asserted: each log at most 12.5%, their mean at most 11.5%.
#
# Until then this test was effect.calibration_carries_to_another_vm: with the Zen 4 profile of
# 2026-11-24 (rows timed alone) the same runs read 23-30% uncalibrated and 2.8-6.9% with a
# calibration fitted on the first two VMs' logs (mean 4.8%). That calibration corrects rows timed
# alone; carried to the in-step rows (the first of the three passes) it over-corrected (6.0-16.6%,
# mean 11.5%, where those rows alone read 7.4-10.4%, mean 8.9%), so the claim was retired with
# the profile it was made on. The logs are fixed data, so this guards the profile
# and the prediction, not timing.
# Usage: zen4_logs_in_step_profile.sh EPOCHCOST
source "$(dirname "$0")/lib/setup.sh"
logs=$(cd "$(dirname "$0")/../../data/validation" && pwd)

sum=0
for log in zen4 zen4-rerun zen4-third zen4-fourth zen4-fifth zen4-sixth zen4-seventh \
  zen4-seventh-rerun zen4-seventh-lr; do
  one_thread "$logs/dev-cpu-pytorch-$log.csv" "$dir/$log.csv"
  m=$("$bin" validate "$dir/$log.csv" | mape)
  echo "$log, 1 thread: MAPE ${m}% uncalibrated"
  awk -v m="$m" 'BEGIN { exit !(m <= 12.5) }' ||
    { echo "$log: uncalibrated 1-thread MAPE should be at most 12.5%" >&2; exit 1; }
  sum=$(awk -v s="$sum" -v m="$m" 'BEGIN { print s + m }')
done
mean=$(awk -v s="$sum" 'BEGIN { printf "%.1f", s / 9 }')
echo "mean over the nine logs: ${mean}% uncalibrated"
awk -v m="$mean" 'BEGIN { exit !(m <= 11.5) }' ||
  { echo "the nine logs' mean uncalibrated 1-thread MAPE should be at most 11.5%" >&2; exit 1; }
