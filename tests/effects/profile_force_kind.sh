#!/usr/bin/env bash
# `profile --force-kind KIND,...` measures again the stored ops of those kinds only (after a change
# to how the profiler times them) and reuses the rest: on a store that holds all of mnist_mlp's
# ops, it measures exactly the model's eltwise_fwd signatures (training step and validation pass
# at its batch, 128, as `models ops` lists them) and reuses every other one.
# Usage: profile_force_kind.sh EPOCHCOST
source "$(dirname "$0")/lib/setup.sh"

"$bin" profile mnist_mlp >"$dir/first.txt"
signatures() {  # the signature column of `models ops`, one per line
  "$bin" models ops mnist_mlp --batch 128 "$@" | grep -E '^ *[0-9]+  [a-z]' |
    sed -E 's/^ *[0-9]+  //; s/  .*//'
}
{ signatures; signatures --forward-only; } | sort -u >"$dir/all.txt"
all=$(wc -l <"$dir/all.txt")
forced=$(grep -c '^eltwise_fwd ' "$dir/all.txt")
[ "$forced" -gt 0 ] || { echo "mnist_mlp lowers to no eltwise_fwd op" >&2; exit 1; }
"$bin" profile mnist_mlp --force-kind eltwise_fwd >"$dir/second.txt"
cat "$dir/second.txt"
want="$forced signature$([ "$forced" -eq 1 ] || echo s) measured, $((all - forced)) already stored"
grep -q "$want" "$dir/second.txt" || { echo "expected: $want" >&2; exit 1; }
echo "measured again: $forced of $all"
