#!/usr/bin/env bash
# A module named by EPOCHCOST_TORCH_MODULE that cannot be loaded is a one-line error naming it, and
# the profile store is left as it was; without the variable, a build without the module (or
# EPOCHCOST_TORCH=off) times the same op with its stand-in.
# Usage: torch_module_named.sh EPOCHCOST
source "$(dirname "$0")/lib/setup.sh"

op="embedding_bwd dt=f32 dim=8 rows=64 vocab=100"
"$bin" profile list >"$dir/before.txt"
if EPOCHCOST_TORCH_MODULE=/nonexistent/libepochcost-torch.so \
  "$bin" profile imdb_fasttext --batch 2 >"$dir/out.txt" 2>"$dir/err.txt"; then
  echo "profile with a missing module succeeded" >&2; exit 1
fi
cat "$dir/err.txt"
[ "$(wc -l <"$dir/err.txt")" = 1 ] || { echo "expected a one-line error" >&2; exit 1; }
grep -q "cannot load the ATen module: /nonexistent/libepochcost-torch.so: .*; set EPOCHCOST_TORCH_MODULE to the libepochcost-torch.so built beside epochcost" "$dir/err.txt" ||
  { echo "the error does not name the module" >&2; exit 1; }
"$bin" profile list | diff "$dir/before.txt" - || { echo "the failed run changed the store" >&2; exit 1; }
EPOCHCOST_TORCH=off "$bin" profile op "$op" --repeats 3 --min-ms 1 >"$dir/stand-in.txt"
grep -q "ATen" "$dir/stand-in.txt" && { echo "EPOCHCOST_TORCH=off still used ATen" >&2; exit 1; }
grep -q "^median " "$dir/stand-in.txt" || { echo "no time from the stand-in" >&2; exit 1; }
echo "a missing named module: one line, nothing stored; EPOCHCOST_TORCH=off: the stand-in"
