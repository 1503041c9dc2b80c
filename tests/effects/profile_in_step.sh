#!/usr/bin/env bash
# `profile --in-step` replays each model's validation pass and training step on this CPU and
# stores every op at its calls' times inside them (the median round's steps nearest its median):
# one row per distinct op of each pass (as `models ops` lists them), after which `predict` (an
# error on any op not measured) lists the step's ops as measured here; and `profile step` replays
# the same step beside those rows. With --force-kind it stores only the ops of those kinds again.
# No time is asserted.
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
# Each op is stored at its calls in the half of its round's 50 steps nearest their median, 25 of
# them (no two steps take the same nanoseconds): the first layer's product, called once a step,
# counts 25 calls, each dropout 50.
"$bin" profile export "$dir/in-step.json"
# Every row it stored says it was timed in the step (docs/profiles.md: it may carry past its
# memory bound).
{ "$bin" models ops mnist_mlp --batch 16; "$bin" models ops mnist_mlp --batch 16 --forward-only; } |
  sed -nE 's/^ *[0-9]+  (.*[^ ])  +[^ ].*$/\1/p' | sort -u >"$dir/signatures.txt"
in_step_rows() {  # FILE: of the 1-thread rows of signatures.txt, how many say in_step, of how many
  python3 -c "import json, sys
want = set(open(sys.argv[2]).read().split(chr(10))) - {''}
rows = [m for m in json.load(open(sys.argv[1]))['measurements']
        if m['threads'] == 1 and m['signature'] in want]
print(sum(m.get('in_step') is True for m in rows), len(rows))" "$1" "$dir/signatures.txt"
}
distinct=$(wc -l <"$dir/signatures.txt")
[ "$(in_step_rows "$dir/in-step.json")" = "$distinct $distinct" ] ||
  { echo "in-step rows marked: $(in_step_rows "$dir/in-step.json") of $distinct" >&2; exit 1; }
count_of() {
  grep -A6 "\"signature\": \"$1\"" "$dir/in-step.json" | grep -m1 -oE '"count": [0-9]+' |
    grep -oE '[0-9]+$'
}
product=$(count_of "ip_fwd dt=f32 aten=1 bias=1 ic=784 mb=16 oc=512")
dropout=$(count_of "dropout_fwd dt=f32 aten=1 n=8192")
[ "$product" = 25 ] && [ "$dropout" = 50 ] ||
  { echo "calls counted: product $product (want 25), dropout $dropout (want 50)" >&2; exit 1; }
# With --force-kind, a second in-step run stores the ops of those kinds only, and every other
# row stays as the first run stored it.
optimizers=$("$bin" models ops mnist_mlp --batch 16 | grep -cE '^ *[0-9]+  optimizer ')
"$bin" profile mnist_mlp --batch 16 --in-step --threads 1 --force-kind optimizer >"$dir/forced.txt"
grep -q ": $optimizers op times stored from replayed steps" "$dir/forced.txt" ||
  { cat "$dir/forced.txt" >&2; echo "expected $optimizers optimizer rows stored" >&2; exit 1; }
"$bin" profile export "$dir/forced.json"
[ "$(count_of "ip_fwd dt=f32 aten=1 bias=1 ic=784 mb=16 oc=512")" = 25 ] &&
  diff <(grep -v optimizer "$dir/in-step.json" | grep -A5 '"signature": "ip_fwd') \
    <(grep -v optimizer "$dir/forced.json" | grep -A5 '"signature": "ip_fwd') >/dev/null ||
  { echo "--force-kind optimizer changed a product's row" >&2; exit 1; }
# A 2-thread run replays the step at 1 thread too, for the ops PyTorch runs serially
# (StepOp::serial: relu on 8,192 values), and stores only their 1-thread rows there: a product's
# 1-thread row stays as it was (regression: that replay replaced every op's 1-thread row).
"$bin" profile export "$dir/one.json"
"$bin" profile mnist_mlp --batch 16 --in-step --threads 2 >/dev/null
"$bin" profile export "$dir/two.json"
row() {  # FILE THREADS SIGNATURE: that row of an export, as one line ("[]" for none)
  python3 -c "import json, sys; print([m for m in json.load(open(sys.argv[1]))['measurements']
    if m['threads'] == int(sys.argv[2]) and m['signature'] == sys.argv[3]])" "$@"
}
product="ip_fwd dt=f32 aten=1 bias=1 ic=784 mb=16 oc=512"
relu="eltwise_fwd dt=f32 alg=relu n=8192"
[ "$(row "$dir/one.json" 1 "$product")" = "$(row "$dir/two.json" 1 "$product")" ] ||
  { echo "a 2-thread in-step run changed the product's 1-thread row" >&2; exit 1; }
[ "$(row "$dir/two.json" 2 "$product")" != "[]" ] &&
  [ "$(row "$dir/two.json" 2 "$relu")" = "[]" ] &&
  [ "$(row "$dir/one.json" 1 "$relu")" != "$(row "$dir/two.json" 1 "$relu")" ] ||
  { echo "a 2-thread in-step run stored no product row or no relu 1-thread row" >&2; exit 1; }
# --warm-operands: the same rows, timed with each oneDNN call's buffers read just before it.
"$bin" profile mnist_mlp --batch 16 --in-step --threads 1 --warm-operands >"$dir/warm.txt"
grep -q ": $want op times stored from replayed steps" "$dir/warm.txt" ||
  { cat "$dir/warm.txt" >&2; echo "--warm-operands: expected $want op times stored" >&2; exit 1; }
# Its operands warmed before each call, no row of it says it was timed as the step left them.
"$bin" profile export "$dir/warm.json"
[ "$(in_step_rows "$dir/warm.json")" = "0 $distinct" ] ||
  { echo "--warm-operands rows marked in_step: $(in_step_rows "$dir/warm.json")" >&2; exit 1; }
"$bin" predict mnist_mlp --batch 16 --threads 1 --on local-cpu >"$dir/predict.txt"
ops_in_table=$(grep -cE '^ *[0-9.]+%' "$dir/predict.txt")
here=$(grep -cE '^ *[0-9.]+%.*measured here' "$dir/predict.txt")
[ "$ops_in_table" -gt 0 ] && [ "$ops_in_table" = "$here" ] ||
  { echo "predict: $here of $ops_in_table ops measured here" >&2; exit 1; }
"$bin" profile step mnist_mlp --batch 16 --threads 1 --steps 3 --ops 3 >"$dir/step.txt"
cat "$dir/step.txt"
grep -qE '^ +1 +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +3 +[0-9.]+ +[0-9.]+x$' "$dir/step.txt" ||
  { echo "profile step: no row of 3 steps with the profile's op means and their ratio" >&2; exit 1; }
# The same as JSON: its phases split the step's 25 calls 9 / 10 / 6 (forward with the loss,
# backward, the six updates), each phase is its calls' means added up, and the ops' rows add up
# to the step's.
"$bin" profile step mnist_mlp --batch 16 --threads 1 --steps 3 --json >"$dir/step.json"
python3 - "$dir/step.json" <<'PY' || { cat "$dir/step.json" >&2; exit 1; }
import json, sys
d = json.load(open(sys.argv[1]))
t = d["threads"][0]
assert d["calls"] == 25 and t["threads"] == 1 and t["steps"] == 3, d
assert [p["calls"] for p in t["phases"]] == [9, 10, 6], t["phases"]
ops = sum(o["replayed_seconds_per_call"] * o["count"] for o in t["ops"])
phases = sum(p["replayed_seconds"] for p in t["phases"])
assert abs(ops - t["replayed_op_seconds"]) < 1e-9 and abs(phases - ops) < 1e-9, (ops, phases)
assert t["profile_op_seconds"] > 0 and t["now_over_profile"] > 0, t
PY
echo "in-step rows: $want, predict: $here ops measured here"
