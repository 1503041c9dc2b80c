#!/usr/bin/env bash
# On a lent GPU machine (through the device tool, carrying .devbin from tools/gpu/bundle.sh):
# runs the GPU tests, profiles the models at each precision with `epochcost profile --device gpu`,
# exports the profile, times real PyTorch training steps of the same models
# (tools/reference/torch_step.py) and records `epochcost predict --on local-gpu` for each.
# Everything lands in $OUT: log.txt, tests.txt, gpu-profile.json, torch.txt, predict.txt and
# predict.tar.gz (each prediction's JSON); with KERNELS=N, kernels.txt (PyTorch's top N kernels
# per model, from torch.profiler).
# Each phase runs even when an earlier one failed, so one run brings back all it can.
# BATCH=N runs every model at that batch instead of its own (the published runs' shapes: Lambda's
# ResNet50 v1.5 ran 128-256 per 16 GB GPU and 640-1280 per 80 GB one, docs/accuracy.md); a
# precision written P:N (PRECISIONS="tf32:256 fp16:512") runs at batch N. OPTIMIZER=O trains
# with that optimizer instead of each model's. The PyTorch steps are also appended to
# $OUT/runs.csv as a run log (docs/run-logs.md). DEADLINE=S (seconds since the epoch) cuts every
# command short so that the whole script ends by then; the profile is exported after each
# precision, so a cut run still brings back what it measured. IMPORT=FILE imports that profile
# export (a shipped data/profiles file) into the store first, so that only the signatures it
# lacks are measured; the store lasts between runs on the same machine. FORCE_KIND=KINDS (e.g.
# eltwise_fwd,eltwise_bwd,binary) measures the stored ops of those kinds again (`profile
# --force-kind`), after a change to how the profiler times them; FORCE=1 measures all of the
# models' ops again (`profile --force`), e.g. for what a newer profiler records (each call's host
# time, 2026-11-26). CHANNELS_LAST=1 adds
# --channels-last to the profile, the PyTorch steps and the predictions.
# Usage: MODELS="..." PRECISIONS="fp32 bf16" PHASES="tests again profile torch predict" tools/gpu/measure.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp/epochcost-gpu}
mkdir -p "$out"
models=${MODELS:-"mnist_mlp mnist_cnn cifar10_cnn imdb_fasttext imdb_bidirectional_lstm lstm_text_generation resnet50 bert_base gpt2_small"}
precisions=${PRECISIONS:-"fp32 bf16"}
phases=${PHASES:-"tests profile torch predict"}
optimizer=(${OPTIMIZER:+--optimizer "$OPTIMIZER"})
force=(${FORCE_KIND:+--force-kind "$FORCE_KIND"} ${FORCE:+--force})
# CHANNELS_LAST=1: 4-D tensors channels-last in the profile, the PyTorch steps and predictions.
layout=(${CHANNELS_LAST:+--channels-last})
# The precision of a P:N entry, and the --batch option of its N (else of BATCH).
prec() { echo "${1%%:*}"; }
# torch_step.py's options for a precision: amp is --precision fp16 --amp, amp-bf16 bf16 --amp.
torch_prec() {
  case "$(prec "$1")" in
    amp) echo "--precision fp16 --amp" ;;
    amp-bf16) echo "--precision bf16 --amp" ;;
    *) echo "--precision $(prec "$1")" ;;
  esac
}
batch_of() {
  local n=${BATCH:-}
  [[ "$1" == *:* ]] && n=${1#*:}
  [ -n "$n" ] && echo "--batch $n"
}
# Seconds a command may run: its cap, or what is left before DEADLINE if less (at least 1).
left() {
  local cap=$1
  if [ -n "${DEADLINE:-}" ]; then
    local rest=$((DEADLINE - $(date +%s)))
    [ "$rest" -lt "$cap" ] && cap=$rest
  fi
  [ "$cap" -lt 1 ] && cap=1
  echo "$cap"
}
log() { echo "== $(date -u +%H:%M:%S) $*" | tee -a "$out/log.txt"; }

ec=/tmp/ec
mkdir -p $ec && tar -xJf .devbin/bundle.tar.xz -C $ec
# The machine's CUDA runtime and cuBLAS, and the cuDNN PyTorch itself loads (its wheel's, found
# first under /opt), so that both pick from the same convolution algorithms. Only epochcost's
# binaries get this library path: PyTorch refuses a cuDNN other than its own.
libdirs=""
for pat in "libcudnn.so.9" "libcudart.so.13" "libcublas.so.13"; do
  f=$(find /opt /usr/local/cuda*/ /usr/lib/x86_64-linux-gnu -name "$pat" 2>/dev/null | head -1)
  [ -n "$f" ] && libdirs="$libdirs:$(dirname "$f")"
done
export EPOCHCOST_PROFILES=$ec/profiles.sqlite
cat >$ec/run <<EOS
#!/bin/sh
export LD_LIBRARY_PATH="$ec/lib$libdirs\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
exec "\$@"
EOS
chmod +x $ec/run
bin="$ec/run $ec/bin/epochcost"
{
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
  # The host CPU: a short step goes at the pace it issues PyTorch's calls (docs/accuracy.md).
  lscpu | grep -E "^Model name|^CPU\(s\)|^Thread|MHz"
  echo "LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}"
  $ec/run ldd $ec/bin/epochcost | grep -E "not found|cud|cublas"
  python3 -c "import torch; print('torch', torch.__version__, 'cudnn', torch.backends.cudnn.version())"
} >>"$out/log.txt" 2>&1

if [ -n "${IMPORT:-}" ]; then
  log "profile import $IMPORT"
  $bin profile import "$IMPORT" >>"$out/log.txt" 2>&1
  log "import exit $?"
fi
if [[ " $phases " == *" tests "* ]]; then
  log "GPU tests"
  timeout "$(left 90)" $ec/run $ec/bin/profiler_tests --gtest_filter='Gpu*' >"$out/tests.txt" 2>&1
  log "tests exit $? ($(grep -c '^\[       OK' "$out/tests.txt") OK)"
fi
# Phase "again": every op of the store's profile of this GPU (the shipped one, with IMPORT or as
# the binary embeds it) measured again, e.g. after a change to how the profiler times ops;
# AGAIN_BEFORE=YYYY-MM-DD only those measured before that day (a cut run going on, on the same
# machine, whose store keeps what it measured).
if [[ " $phases " == *" again "* ]]; then
  log "profile --again ${AGAIN_BEFORE:+--measured-before $AGAIN_BEFORE}"
  timeout "$(left 600)" $bin profile --again --device gpu \
    ${AGAIN_BEFORE:+--measured-before "$AGAIN_BEFORE"} >>"$out/log.txt" 2>&1
  log "profile exit $?"
  $bin profile export "$out/gpu-profile.json" --device gpu >>"$out/log.txt" 2>&1
fi
if [[ " $phases " == *" profile "* ]]; then
  for p in $precisions; do
    log "profile --precision $(prec "$p") $(batch_of "$p") ${optimizer[*]} ${force[*]}"
    timeout "$(left 600)" $bin profile $models --device gpu --precision "$(prec "$p")" \
      $(batch_of "$p") "${optimizer[@]}" "${force[@]}" "${layout[@]}" >>"$out/log.txt" 2>&1
    log "profile exit $?"
    $bin profile export "$out/gpu-profile.json" --device gpu >>"$out/log.txt" 2>&1
  done
fi
if [[ " $phases " == *" torch "* ]]; then
  for p in $precisions; do
    for m in $models; do
      log "torch $m $p"
      timeout "$(left 120)" python3 tools/reference/torch_step.py "data/models/$m.json" \
        --device cuda $(torch_prec "$p") --steps 30 --warmup 10 $(batch_of "$p") \
        "${optimizer[@]}" "${layout[@]}" --run-log "$out/runs.csv" >>"$out/torch.txt" 2>>"$out/log.txt"
    done
  done
fi
if [ "${KERNELS:-0}" -gt 0 ]; then
  for p in $precisions; do
    for m in ${KERNEL_MODELS:-$models}; do
      echo "### $m $p" >>"$out/kernels.txt"
      timeout "$(left 120)" python3 tools/reference/torch_step.py "data/models/$m.json" \
        --device cuda $(torch_prec "$p") --steps 3 --warmup 5 $(batch_of "$p") \
        "${optimizer[@]}" --kernels "$KERNELS" >>"$out/kernels.txt" 2>&1
    done
  done
fi
if [[ " $phases " == *" predict "* ]]; then
  for p in $precisions; do
    for m in $models; do
      echo "### $m $p" >>"$out/predict.txt"
      $bin predict "$m" --on local-gpu --precision "$(prec "$p")" --samples 1 --top 8 \
        $(batch_of "$p") "${optimizer[@]}" "${layout[@]}" >>"$out/predict.txt" 2>&1
      $bin predict "$m" --on local-gpu --precision "$(prec "$p")" --samples 1 $(batch_of "$p") \
        "${optimizer[@]}" --json >"$out/pred-$m-${p/:/-}.json" 2>/dev/null
    done
  done
fi
(cd "$out" && ls pred-*.json >/dev/null 2>&1 && tar -czf predict.tar.gz pred-*.json && rm pred-*.json)
log "done"
