#!/usr/bin/env bash
# Regression (2026-11-29): `profile --threads 100000` crashed (SIGSEGV in the OpenMP runtime) and
# `predict --on local-cpu --threads 100000` suggested that command. A thread count above this
# machine's logical processors is now a one-line error naming the count and the machine's, exit
# 1, and nothing is stored; the machine's own count is still accepted.
# Usage: threads_above_hardware.sh EPOCHCOST
source "$(dirname "$0")/lib/setup.sh"

n=$(getconf _NPROCESSORS_ONLN)
too_many=$((n + 1))
"$bin" profile list >"$dir/before.txt"
for args in "profile mnist_mlp --threads 1,$too_many" "profile step mnist_mlp --threads $too_many" \
  "predict mnist_mlp --on local-cpu --threads $too_many"; do
  read -r -a a <<<"$args"
  set +e
  "$bin" "${a[@]}" >"$dir/out.txt" 2>"$dir/err.txt"
  code=$?
  set -e
  [ "$code" = 1 ] || { echo "$args: exit $code, expected 1" >&2; exit 1; }
  want="epochcost: error: --threads $too_many: this machine has $n hardware thread"
  grep -q -- "^$want" "$dir/err.txt" || { echo "$args: $(cat "$dir/err.txt")" >&2; exit 1; }
  [ "$(wc -l <"$dir/err.txt")" = 1 ] || { echo "$args: not one line" >&2; exit 1; }
  echo "$args: $(cat "$dir/err.txt")"
done
"$bin" profile list >"$dir/after.txt"
cmp -s "$dir/before.txt" "$dir/after.txt" || { echo "the store changed" >&2; exit 1; }
"$bin" profile op "eltwise_fwd dt=f32 alg=relu n=1024" --threads "$n" >/dev/null
echo "--threads $n (this machine's count) is accepted"
