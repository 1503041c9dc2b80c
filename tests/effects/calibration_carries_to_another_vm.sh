#!/usr/bin/env bash
# A PyTorch calibration carries to a CPU it was not fitted on. The 1-thread rows of the harness
# logs of the first two development VMs (@dev-cpu-pytorch: AVX-512; @dev-cpu-pytorch-avx2: AVX2
# only) are calibrated (kernel scale, per-op and per-step overhead, memory passes;
# docs/calibration.md), then
# the 1-thread rows of a third VM's log (@dev-cpu-pytorch-zen4: Zen 4, its own shipped profile,
# measured a day later) are predicted with that calibration. docs/accuracy.md gives every figure:
# MAPE 26.5% uncalibrated, 8.0% calibrated, worst +22.7% (mnist_mlp).
#
# The same calibration then predicts the 1-thread runs of a later harness run on a VM of the third
# kind (@dev-cpu-pytorch-zen4-rerun, 2026-11-25, three rounds): 30.1% uncalibrated, 6.8%
# calibrated, worst -14.5% (imdb_fasttext, whose three rounds took 3.17, 5.90 and 6.35 s an epoch).
#
# And a third VM of that kind (@dev-cpu-pytorch-zen4-third, 2026-11-25, three rounds, the ninth
# session): 28.4% uncalibrated, 4.0% calibrated, worst +9.9% (mnist_mlp).
#
# And a fourth (@dev-cpu-pytorch-zen4-fourth, 2026-11-25, three rounds, the tenth session): 31.2%
# uncalibrated (1 thread 25.2%), 8.9% calibrated, worst +35.9% (mnist_mlp, whose per-step cost the
# fit over-charges; the other five within 6.2%).
#
# And a fifth (@dev-cpu-pytorch-zen4-fifth, 2026-11-25, three rounds, the eleventh session): 29.6%
# uncalibrated (1 thread 23.3%), 7.9% calibrated, worst +32.2% (mnist_mlp again; the other five
# within 6.2%).
#
# And a sixth (@dev-cpu-pytorch-zen4-sixth, 2026-11-25, three rounds, the twelfth session): 33.0%
# uncalibrated (1 thread 25.9%), 8.7% calibrated, worst +29.7% (mnist_mlp again; the other five
# within 9.0%).
#
# And a seventh (@dev-cpu-pytorch-zen4-seventh, 2026-11-26, three rounds, the sixteenth session):
# 33.1% uncalibrated (1 thread 28.7%), 11.9% calibrated, worst +33.7% (mnist_mlp again; mnist_cnn
# -11.3%, imdb_fasttext -15.9%, whose rounds took 6.00, 4.95 and 6.20 s an epoch), the first log
# this calibration predicts worse than 10%.
#
# Since the calibration has memory passes (2026-11-26, seventeenth session: extra passes over each
# op's memory traffic at the step's memory bandwidth; fitted here at 0.536 with kernel scale
# 0.927, 5.12 us per op and 0.41 ms per step) the seven logs read 4.3%, 3.9%, 2.8%, 4.1%, 5.8%,
# 4.6% and 6.9% calibrated (mean 4.6%; before them 8.0%, 6.8%, 4.0%, 8.9%, 7.9%, 8.7% and 11.9%,
# mean 8.0%).
#
# And a rerun on the seventh's VM (@dev-cpu-pytorch-zen4-seventh-rerun, 2026-11-26, three rounds,
# the seventeenth session, measured after the memory passes were settled): 34.8% uncalibrated (1
# thread 30.3%), 5.3% calibrated, worst -15.1% (mnist_cnn); 10.0% with the earlier form.
#
# And a second rerun there (@dev-cpu-pytorch-zen4-seventh-lr, 2026-11-26, three rounds, the
# eighteenth session, each model at its authors' learning rate): 29.9% uncalibrated on its 1-thread
# runs, 5.2% calibrated, worst -13.4% (mnist_cnn).
#
# Asserted: each log's calibrated MAPE on its six 1-thread runs is below its uncalibrated one, at
# most 7.5% (the seventh's 6.9%), and the nine logs' mean at most 5% (4.8%). The logs are fixed
# data, so this guards the fit and the prediction, not timing.
# Usage: calibration_carries_to_another_vm.sh EPOCHCOST
source "$(dirname "$0")/lib/setup.sh"
logs=$(cd "$(dirname "$0")/../../data/validation" && pwd)

one_thread "$logs/dev-cpu-pytorch.csv" "$dir/fit-first.csv"
one_thread "$logs/dev-cpu-pytorch-avx2.csv" "$dir/fit-avx2.csv"
one_thread "$logs/dev-cpu-pytorch-zen4.csv" "$dir/zen4.csv"
one_thread "$logs/dev-cpu-pytorch-zen4-rerun.csv" "$dir/zen4-rerun.csv"
one_thread "$logs/dev-cpu-pytorch-zen4-third.csv" "$dir/zen4-third.csv"
one_thread "$logs/dev-cpu-pytorch-zen4-fourth.csv" "$dir/zen4-fourth.csv"
one_thread "$logs/dev-cpu-pytorch-zen4-fifth.csv" "$dir/zen4-fifth.csv"
one_thread "$logs/dev-cpu-pytorch-zen4-sixth.csv" "$dir/zen4-sixth.csv"
one_thread "$logs/dev-cpu-pytorch-zen4-seventh.csv" "$dir/zen4-seventh.csv"
one_thread "$logs/dev-cpu-pytorch-zen4-seventh-rerun.csv" "$dir/zen4-seventh-rerun.csv"
one_thread "$logs/dev-cpu-pytorch-zen4-seventh-lr.csv" "$dir/zen4-seventh-lr.csv"

"$bin" calibrate "$dir/fit-first.csv" "$dir/fit-avx2.csv"
sum=0
for log in zen4 zen4-rerun zen4-third zen4-fourth zen4-fifth zen4-sixth zen4-seventh \
  zen4-seventh-rerun zen4-seventh-lr; do
  before=$("$bin" validate "$dir/$log.csv" | mape)
  after=$("$bin" validate "$dir/$log.csv" --calibrated | mape)
  echo "$log, 1 thread: MAPE ${before}% uncalibrated, ${after}% calibrated on the other two VMs"
  awk -v b="$before" -v a="$after" 'BEGIN { exit !(a <= 7.5 && a < b) }' ||
    { echo "$log: calibrated MAPE should be at most 7.5% and below the uncalibrated" >&2; exit 1; }
  sum=$(awk -v s="$sum" -v a="$after" 'BEGIN { print s + a }')
done
mean=$(awk -v s="$sum" 'BEGIN { printf "%.1f", s / 9 }')
echo "mean over the nine logs: ${mean}% calibrated"
awk -v m="$mean" 'BEGIN { exit !(m <= 5) }' ||
  { echo "the nine logs' mean calibrated MAPE should be at most 5%" >&2; exit 1; }
