#!/usr/bin/env bash
# Woolf's 2017 GCE benchmark effects (issue 5; docs/cross-device.md), reproduced without fitting
# to the model under test: for each model, the keras+tensorflow calibration (a kernel scale and a
# per-op overhead per device kind) is fitted on the shipped published runs of the OTHER models
# only (leave-one-model-out), then the model is ranked over GCE's offers at the 2017 prices.
#
# Asserted:
#   July 2017: mnist_mlp: a preemptible CPU instance (8-64 vCPUs) is cheaper per epoch than the K80.
#              mnist_cnn, cifar10_cnn: the K80 is faster than every CPU configuration.
#              every model: 64 vCPUs (n1-highcpu-64) are no faster than 32 (n1-highcpu-32). The
#              contention prior that decides this (engine/machine.cpp UslPrior) was fitted to
#              these runs' vCPU scaling (tools/fit_usl_prior.py), all models included: this part
#              checks that the engine carries the fit through, not an independent prediction.
#   Nov 2017:  every model: the P100 is faster than the K80 and is not the cheapest per epoch.
# Usage: woolf_2017_gce.sh EPOCHCOST
set -euo pipefail
bin=$1
dir=$(mktemp -d /tmp/epochcost-effect-XXXXXX)
trap 'rm -rf "$dir"' EXIT
export EPOCHCOST_CATALOG=$dir/catalog.sqlite

# The shipped published runs, as the product embeds them (validate @published-runs reads the same).
runs=$(cd "$(dirname "$0")/../.." && pwd)/data/validation/published-runs.csv

status=0
fail() { echo "$*" >&2; status=1; }
# CSV columns: rank,instance,provider,region,kind,accelerators,batch,usd_per_hour,epoch_seconds,
#              usd_per_epoch,...
best() {  # best FILE FIELD(9 seconds|10 usd) PATTERN: the smallest FIELD among matching offers
  awk -F, -v f="$2" -v p="$3" 'NR > 1 && $0 ~ p { v = $f + 0; if (b == "" || v < b) b = v }
    END { print (b == "" ? "none" : b) }' "$1"
}
for model in mnist_mlp mnist_cnn cifar10_cnn; do
  export EPOCHCOST_PROFILES=$dir/$model.profiles.sqlite
  grep -v "^$model," "$runs" >"$dir/runs-without-$model.csv"
  "$bin" calibrate "$dir/runs-without-$model.csv" >"$dir/$model.calibrate.txt"
  for date in 2017-07-01 2017-11-15; do
    "$bin" recommend "$model" --cloud gcp --as-of "$date" --framework keras+tensorflow --top 0 \
      --csv >"$dir/$model.$date.csv"
  done
  july=$dir/$model.2017-07-01.csv nov=$dir/$model.2017-11-15.csv
  k80_s=$(best "$july" 9 '\+K80"') k80_usd=$(best "$july" 10 '\+K80"')
  cpu_s=$(best "$july" 9 'vCPU') cpu_usd=$(best "$july" 10 'preemptible,"[0-9]+ vCPU')
  echo "$model (July 2017): K80 ${k80_s} s, \$${k80_usd}/epoch; best CPU ${cpu_s} s; cheapest" \
       "preemptible CPU \$${cpu_usd}/epoch"
  case $model in
    mnist_mlp)
      awk -v c="$cpu_usd" -v g="$k80_usd" 'BEGIN { exit !(c < g) }' ||
        fail "$model: a preemptible CPU instance should be cheaper per epoch than the K80" ;;
    *)
      awk -v c="$cpu_s" -v g="$k80_s" 'BEGIN { exit !(g < c) }' ||
        fail "$model: the K80 should be faster than every CPU configuration" ;;
  esac
  s32=$(best "$july" 9 '"n1-highcpu-32"') s64=$(best "$july" 9 '"n1-highcpu-64"')
  echo "$model (July 2017): n1-highcpu-32 ${s32} s, n1-highcpu-64 ${s64} s per epoch"
  awk -v a="$s32" -v b="$s64" 'BEGIN { exit !(b >= a) }' ||
    fail "$model: 64 vCPUs should be no faster than 32"
  p100_s=$(best "$nov" 9 '\+P100"') k80_s=$(best "$nov" 9 '\+K80"')
  cheapest=$(awk -F, 'NR == 2 { print $2 }' "$nov")
  echo "$model (Nov 2017): P100 ${p100_s} s, K80 ${k80_s} s per epoch; cheapest $cheapest"
  [ "$p100_s" != none ] || { fail "$model: no P100 offer at Nov 2017 prices"; continue; }
  awk -v p="$p100_s" -v k="$k80_s" 'BEGIN { exit !(p < k) }' ||
    fail "$model: the P100 should be faster than the K80"
  case $cheapest in *P100*) fail "$model: the P100 should not be the cheapest per epoch" ;; esac
done
exit $status
