#!/usr/bin/env bash
# The Azure serving study's effect (docs/serving.md, issue 8): serving the Keras CNNs of 2018
# (MobileNetV2 ... NASNetLarge), a cluster of K80 nodes gave 1.86-8x the throughput of a CPU
# cluster of similar monthly cost. epochcost reproduces it once it knows the framework: the
# keras+tensorflow calibration is fitted here on the published 2017 Keras/TensorFlow training runs
# shipped in data/validation (not on any serving measurement), then every CNN is planned on Azure.
#
# Asserted, per model: the cheapest K80 (Standard_NC6) cluster's cost per million requests is at
# most 1/1.86 of the cheapest CPU-only cluster's (any Azure CPU instance type and region), within
# the 10% error the product allows itself on a GPU it did not measure (the K80 is scaled from the
# H100 profile): a ratio of at least 0.9 x 1.86 = 1.67. Since the published runs' recurrent layers
# are lowered as the frameworks ran them (per-step ops, 2026-11-23), the GPU calibration is kernel
# scale 3.64 with no per-op overhead and mobilenet_v2 came out at 1.69x (3.85x before), below the
# study's lowest 1.86x; docs/serving.md gives every figure.
# A model listed in known_miss is asserted only in direction (the K80 cheaper per request) and
# printed as KNOWN MISS; the test fails when it reaches 1.67x, so the list cannot go stale.
# mobilenet_v2 was listed from 2026-11-24 (1.50x, after the CPU calibration gained a per-step
# overhead) to 2026-11-26 (3.01x: one K80 node, since memory-bound ops are carried between GPUs by
# SMs x clock and the H100 leads the GPU pool); none is listed now.
# Azure retired its K80 sizes (Standard_NC6 ...) on 2023-09-06 and the catalog has no Azure prices
# from before then, so the 2018 market is studied with --include-retired at the catalog's prices.
known_miss=""
# Usage: serving_k80_vs_cpu.sh EPOCHCOST
source "$(dirname "$0")/lib/setup.sh"

"$bin" calibrate @published-runs >"$dir/calibrate.txt"
grep -q '^Calibration of keras+tensorflow on cpu' "$dir/calibrate.txt"
grep -q '^Calibration of keras+tensorflow on gpu' "$dir/calibrate.txt"

status=0
for model in mobilenet_v2 nasnet_mobile resnet50 resnet152 vgg16 nasnet_large; do
  "$bin" serve "$model" --qps 200 --cloud azure --framework keras+tensorflow --max-batch 64 \
      --include-retired --csv --top 0 >"$dir/$model.csv"
  # Columns: rank,instance,region,kind,accelerators,nodes,replicas_per_node,batch,p95_seconds,
  #          capacity_per_second,usd_per_month,usd_per_million_requests
  read -r k80 cpu < <(awk -F, 'NR > 1 {
      gsub(/"/, "", $5); per_m = $12 + 0
      if ($2 == "azure:Standard_NC6" && (k80 == "" || per_m < k80)) k80 = per_m
      if ($5 ~ /vCPU/ && (cpu == "" || per_m < cpu)) cpu = per_m
    } END { print (k80 == "" ? "none" : k80), (cpu == "" ? "none" : cpu) }' "$dir/$model.csv")
  if [ "$k80" = none ]; then
    echo "$model: no Standard_NC6 cluster can serve 200 requests/s" >&2; status=1; continue
  fi
  if [ "$cpu" = none ]; then
    echo "$model: K80 \$$k80 per million requests; no CPU cluster can serve it (effect holds)"
    continue
  fi
  ratio=$(awk -v g="$k80" -v c="$cpu" 'BEGIN { printf "%.2f", c / g }')
  echo "$model: K80 \$$k80 per million requests, cheapest CPU cluster \$$cpu: ${ratio}x"
  if [[ " $known_miss " == *" $model "* ]]; then
    if awk -v r="$ratio" 'BEGIN { exit !(r >= 0.9 * 1.86) }'; then
      echo "$model: reaches 1.67x again; take it off known_miss" >&2; status=1
    elif ! awk -v r="$ratio" 'BEGIN { exit !(r > 1) }'; then
      echo "$model: the K80 cluster should at least be the cheaper per request" >&2; status=1
    else
      echo "$model: KNOWN MISS (${ratio}x, the study's lowest is 1.86x)"
    fi
    continue
  fi
  if ! awk -v r="$ratio" 'BEGIN { exit !(r >= 0.9 * 1.86) }'; then
    echo "$model: the K80 cluster should serve at least 1.86x the requests per dollar (10% allowed)" >&2
    status=1
  fi
done
exit $status
