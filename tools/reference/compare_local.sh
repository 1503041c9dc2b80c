#!/usr/bin/env bash
# Compares `epochcost predict --on local-cpu` with real PyTorch training steps on this machine for
# the given zoo models and thread counts; prints a Markdown table (docs/accuracy.md).
# Usage: tools/reference/compare_local.sh [BUILD_DIR] (models and threads below)
# TORCH_LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2 runs PyTorch (only) with another
# allocator, as PyTorch's CPU performance guide recommends (Debian: apt-get install libjemalloc2).
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${1:-build}/cli/epochcost
models=${MODELS:-"mnist_mlp mnist_cnn cifar10_cnn imdb_fasttext imdb_bidirectional_lstm lstm_text_generation"}
threads=${THREADS:-"1 2"}
echo "| model | threads | batch | predicted step (ms) [every op at p10, p90] | PyTorch step, median of 50 (ms) [p10, p90] | error |"
echo "|---|---|---|---|---|---|"
for m in $models; do
  for t in $threads; do
    pred=$("$bin" predict "$m" --on local-cpu --threads "$t" --json |
           /usr/bin/python3 -c 'import json,sys; j=json.load(sys.stdin); print(j["step_seconds"]*1e3, j["batch"], "%.2f" % (j["step_p10_seconds"]*1e3), "%.2f" % (j["step_p90_seconds"]*1e3))')
    read -r pred_ms batch pred_p10 pred_p90 <<<"$pred"
    real=$(env ${TORCH_LD_PRELOAD:+LD_PRELOAD="$TORCH_LD_PRELOAD"} /usr/bin/python3 tools/reference/torch_step.py "data/models/$m.json" --threads "$t" --steps 50)
    med=$(sed -E 's/.*median_ms=([0-9.]+).*/\1/' <<<"$real")
    p10=$(sed -E 's/.*p10_ms=([0-9.]+).*/\1/' <<<"$real")
    p90=$(sed -E 's/.*p90_ms=([0-9.]+).*/\1/' <<<"$real")
    /usr/bin/python3 -c "print('| $m | $t | $batch | %.2f [$pred_p10, $pred_p90] | %.2f [$p10, $p90] | %+.1f%% |' % ($pred_ms, $med, 100*($pred_ms-$med)/$med))"
  done
done
