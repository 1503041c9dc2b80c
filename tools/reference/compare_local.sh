#!/usr/bin/env bash
# Compares `epochcost predict --on local-cpu` with real PyTorch training steps on this machine for
# the given zoo models and thread counts; prints a Markdown table (docs/accuracy.md).
# Usage: tools/reference/compare_local.sh [BUILD_DIR] (models and threads below)
#
# ROUNDS=N (default 1) measures PyTorch N times, round after round over every model and thread
# count, and reports the median of the rounds' medians with the lowest and highest: on a shared VM
# the reference moves by 10-20% between runs minutes apart (docs/accuracy.md), so one run says
# little. REPROFILE=1 measures the models again (`profile --force`) into the store before each
# round, so that prediction and reference share the VM's state of the moment; use it with a
# throw-away EPOCHCOST_PROFILES.
# TORCH_LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2 runs PyTorch (only) with another
# allocator, as PyTorch's CPU performance guide recommends (Debian: apt-get install libjemalloc2).
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${1:-build}/cli/epochcost
models=${MODELS:-"mnist_mlp mnist_cnn cifar10_cnn imdb_fasttext imdb_bidirectional_lstm lstm_text_generation"}
threads=${THREADS:-"1 2"}
rounds=${ROUNDS:-1}
results=$(mktemp)
trap 'rm -f "$results"' EXIT

thread_list=$(tr ' ' ',' <<<"$threads")
for ((r = 1; r <= rounds; r++)); do
  if [[ ${REPROFILE:-0} == 1 ]]; then
    # shellcheck disable=SC2086
    "$bin" profile $models --threads "$thread_list" --force >/dev/null
  fi
  for m in $models; do
    for t in $threads; do
      pred=$("$bin" predict "$m" --on local-cpu --threads "$t" --json |
             /usr/bin/python3 -c 'import json,sys; j=json.load(sys.stdin); print(j["step_seconds"]*1e3, j["batch"], j["step_p10_seconds"]*1e3, j["step_p90_seconds"]*1e3)')
      real=$(env ${TORCH_LD_PRELOAD:+LD_PRELOAD="$TORCH_LD_PRELOAD"} /usr/bin/python3 \
             tools/reference/torch_step.py "data/models/$m.json" --threads "$t" --steps 50)
      med=$(sed -E 's/.*median_ms=([0-9.]+).*/\1/' <<<"$real")
      p10=$(sed -E 's/.*p10_ms=([0-9.]+).*/\1/' <<<"$real")
      p90=$(sed -E 's/.*p90_ms=([0-9.]+).*/\1/' <<<"$real")
      echo "$m $t $pred $med $p10 $p90" >>"$results"
    done
  done
done

/usr/bin/python3 - "$results" "$rounds" <<'EOF'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    m, t, pred, batch, pp10, pp90, med, p10, p90 = line.split()
    rows.setdefault((m, int(t)), []).append(
        (float(pred), int(batch), float(pp10), float(pp90), float(med), float(p10), float(p90)))
if int(sys.argv[2]) == 1:
    print("| model | threads | batch | predicted step (ms) [every op at p10, p90] "
          "| PyTorch step, median of 50 (ms) [p10, p90] | error |")
    print("|---|---|---|---|---|---|")
    for (m, t), [(pred, batch, pp10, pp90, med, p10, p90)] in rows.items():
        print("| %s | %d | %d | %.2f [%.2f, %.2f] | %.2f [%.3f, %.3f] | %+.1f%% |"
              % (m, t, batch, pred, pp10, pp90, med, p10, p90, 100 * (pred - med) / med))
    sys.exit(0)
print("| model | threads | batch | predicted step (ms), median of rounds [lowest, highest] "
      "| PyTorch step, median of the rounds' medians of 50 (ms) [lowest, highest] "
      "| error (of the medians) [each round's, lowest to highest] |")
print("|---|---|---|---|---|---|")
for (m, t), rs in rows.items():
    preds = [r[0] for r in rs]
    meds = [r[4] for r in rs]
    pred, med = statistics.median(preds), statistics.median(meds)
    errors = sorted(100 * (r[0] - r[4]) / r[4] for r in rs)
    print("| %s | %d | %d | %.2f [%.2f, %.2f] | %.2f [%.2f, %.2f] | %+.1f%% [%+.1f, %+.1f] |"
          % (m, t, rs[0][1], pred, min(preds), max(preds), med, min(meds), max(meds),
             100 * (pred - med) / med, errors[0], errors[-1]))
EOF
