#!/usr/bin/env bash
# Where the ATen module is built, `profile` stores PyTorch's cost per op call on this CPU
# (framework_call_seconds: ATen's dispatcher, autograd's recording and its engine), and `predict`
# charges it per call of a step lowered as PyTorch runs it; a step lowered for another framework
# (--no-aten) keeps oneDNN's dispatch, and a given --overhead-us wins over both. A profile without
# it (measured before the module, or by a build without it: nothing stored) borrows the first
# other CPU profile's of its own ISA in the store's order, else the first of any, and says whose:
# the shipped AVX2 profile borrows the shipped Zen 3 one's (its ISA, since 2026-12-02; the Zen 4
# one's before), the first AVX-512 AMD profile the Zen 4 one's, which shipping the Zen 3 profile
# must not change (the Zen 5 profile has its own).
# Usage: framework_call.sh EPOCHCOST
source "$(dirname "$0")/lib/setup.sh"

"$bin" profile mnist_mlp --batch 4 --threads 1 >/dev/null
"$bin" profile mnist_mlp --batch 4 --threads 1 --no-aten >/dev/null
"$bin" profile export "$dir/p.json" >/dev/null
predict() { "$bin" predict mnist_mlp --on local-cpu --batch 4 --threads 1 --json "$@"; }
field() { python3 -c "import json,sys; d=json.load(sys.stdin); print(d.get('$1', ''))"; }
bench() {
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(''.join(str(b['value']) for b in d['microbenchmarks'] if b['name'] == sys.argv[2] and b['threads'] == 1))" "$dir/p.json" "$1"
}
dispatch=$(bench dispatch_seconds)
call=$(bench framework_call_seconds)
[ "$(predict --no-aten | field per_op_overhead_seconds)" = "$dispatch" ] ||
  { echo "--no-aten: the per-op overhead is not the dispatch ($dispatch s)" >&2; exit 1; }
[ "$(predict --overhead-us 7 | field per_op_overhead_seconds)" = "7e-06" ] ||
  { echo "--overhead-us 7 was not charged" >&2; exit 1; }
avx2=(predict mnist_mlp --on "device:AMD EPYC [avx2 fma]" --threads 1 --json)
[ "$("$bin" "${avx2[@]}" | field per_op_overhead_measured_on)" = "AMD EPYC (family 25, model 1)" ] ||
  { echo "the shipped AVX2 profile does not borrow the shipped Zen 3 one's cost per call" >&2; exit 1; }
first=(predict mnist_mlp --on "device:AMD EPYC" --threads 1 --json)
[ "$("$bin" "${first[@]}" | field per_op_overhead_measured_on)" = "AMD EPYC (family 25, model 17)" ] ||
  { echo "the first AMD profile does not borrow the Zen 4 one's cost per call (its ISA)" >&2; exit 1; }
zen5=(predict mnist_mlp --on "device:AMD EPYC (family 26, model 2)" --threads 1 --json)
[ -z "$("$bin" "${zen5[@]}" | field per_op_overhead_measured_on)" ] ||
  { echo "the shipped Zen 5 profile borrows a cost per call where it has its own" >&2; exit 1; }
if [ -z "$call" ]; then
  [ -n "$(predict | field per_op_overhead_measured_on)" ] ||
    { echo "without the module this CPU's profile does not borrow a cost per call" >&2; exit 1; }
  echo "built without the ATen module (libtorch-dev): nothing stored here, another CPU's cost per call borrowed"
  exit 0
fi
[ "$(predict | field per_op_overhead_seconds)" = "$call" ] ||
  { echo "the PyTorch lowering does not charge framework_call_seconds ($call s)" >&2; exit 1; }
[ "$(predict | field per_op_overhead_measured)" = "framework_call_seconds" ] ||
  { echo "--json does not say the overhead was measured" >&2; exit 1; }
"$bin" predict mnist_mlp --on local-cpu --batch 4 --threads 1 |
  grep -q "per-op overhead [0-9.]* us: PyTorch's dispatch and autograd, measured here" ||
  { echo "the step line does not say whose overhead it is" >&2; exit 1; }
echo "framework_call_seconds $call s charged for the PyTorch lowering, dispatch $dispatch s for --no-aten"
