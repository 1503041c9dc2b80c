#!/usr/bin/env bash
# Regression (2026-11-23): when predict finds signatures unmeasured, the `epochcost profile`
# command it suggests must measure exactly what is missing. It left out --optimizer (and --rnn,
# --no-reorders, --no-aten), so the suggested command measured the model's own optimizer and
# predict failed again. Asserted: predict fails naming a command; that command, run as printed,
# succeeds; predict then succeeds.
# Usage: missing_profile_hint.sh EPOCHCOST
source "$(dirname "$0")/lib/setup.sh"

args=(predict mnist_mlp --batch 3 --threads 1 --optimizer sgd --no-aten)
if "$bin" "${args[@]}" >"$dir/first.txt" 2>&1; then
  echo "predict succeeded without a profile" >&2; exit 1
fi
hint=$(sed -n 's/.*; run: epochcost //p' "$dir/first.txt")
[ -n "$hint" ] || { echo "no suggested command in: $(cat "$dir/first.txt")" >&2; exit 1; }
echo "suggested: epochcost $hint"
read -r -a hint_args <<<"$hint"
"$bin" "${hint_args[@]}" >/dev/null 2>&1
"$bin" "${args[@]}" >"$dir/second.txt"
grep -q 'step' "$dir/second.txt"
echo "predict after the suggested profile: $(head -n 1 "$dir/second.txt")"
