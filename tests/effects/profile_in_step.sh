#!/usr/bin/env bash
# `profile --in-step` replays each model's validation pass and training step on this CPU and
# stores every op at its calls' times inside them: one row per distinct op of each pass (as
# `models ops` lists them), after which `predict` (an error on any op not measured) lists the
# step's ops as measured here; and `profile step` replays the same step beside those rows. No
# time is asserted.
# Usage: profile_in_step.sh EPOCHCOST
source "$(dirname "$0")/lib/setup.sh"

ops() {  # the distinct signatures of `models ops`, one per line
  "$bin" models ops mnist_mlp --batch 16 "$@" | grep -cE '^ *[0-9]+  [a-z]'
}
want=$(($(ops) + $(ops --forward-only)))
# An op this CPU cannot run (tf32) fails the command and changes nothing stored (the rows of all
# steps are stored only after every step has replayed).
"$bin" profile list >"$dir/before.txt"
if "$bin" profile mnist_mlp --batch 16 --in-step --threads 1 --precision tf32 2>"$dir/err.txt"; then
  echo "profile --in-step of a tf32 step succeeded" >&2; exit 1
fi
grep -q "tf32 is a GPU tensor-core math mode" "$dir/err.txt" || { cat "$dir/err.txt" >&2; exit 1; }
"$bin" profile list | diff "$dir/before.txt" - || { echo "the failed run changed the store" >&2; exit 1; }
"$bin" profile mnist_mlp --batch 16 --in-step --threads 1 >"$dir/profile.txt"
cat "$dir/profile.txt"
grep -q ": $want op times stored from replayed steps" "$dir/profile.txt" ||
  { echo "expected $want op times stored" >&2; exit 1; }
"$bin" predict mnist_mlp --batch 16 --threads 1 --on local-cpu >"$dir/predict.txt"
ops_in_table=$(grep -cE '^ *[0-9.]+%' "$dir/predict.txt")
here=$(grep -cE '^ *[0-9.]+%.*measured here' "$dir/predict.txt")
[ "$ops_in_table" -gt 0 ] && [ "$ops_in_table" = "$here" ] ||
  { echo "predict: $here of $ops_in_table ops measured here" >&2; exit 1; }
"$bin" profile step mnist_mlp --batch 16 --threads 1 --steps 3 --ops 3 >"$dir/step.txt"
cat "$dir/step.txt"
grep -qE '^ +1 +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +3 +[0-9.]+$' "$dir/step.txt" ||
  { echo "profile step: no row of 3 steps with the profile's op means" >&2; exit 1; }
echo "in-step rows: $want, predict: $here ops measured here"
