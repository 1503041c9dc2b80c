#!/usr/bin/env bash
# Runs one golden case: tests/golden/cases/NAME.test starts with
#   # RUN: ARGS...      (the epochcost command line, without the program name)
#   # EXIT: N           (the expected exit status)
#   # KIND: WHAT        (optional: the kind of bad input, for docs/bad-inputs.md)
# and continues with the expected stdout+stderr, byte for byte. Usage: run.sh EPOCHCOST CASE [--update]
set -euo pipefail
bin=$1 case=$2 mode=${3:-}
args=$(sed -n 's/^# RUN: //p' "$case" | head -n 1)
want_exit=$(sed -n 's/^# EXIT: //p' "$case" | head -n 1)
kind=$(sed -n '3s/^# KIND: //p' "$case")
header_lines=2
[ -n "$kind" ] && header_lines=3
[ -n "$args" ] || { echo "$case: no '# RUN:' line" >&2; exit 2; }
actual=$(mktemp)
# Each case gets a fresh catalog and profile store, seeded from the data compiled into epochcost.
export EPOCHCOST_CATALOG EPOCHCOST_PROFILES
EPOCHCOST_CATALOG=$(mktemp -u /tmp/epochcost-golden-XXXXXX).sqlite
EPOCHCOST_PROFILES=$(mktemp -u /tmp/epochcost-golden-XXXXXX).profiles.sqlite
trap 'rm -f "$actual" "$EPOCHCOST_CATALOG"* "$EPOCHCOST_PROFILES"*' EXIT
set +e
eval "\"$bin\" $args" >"$actual" 2>&1
got_exit=$?
set -e
if [ "$mode" = "--update" ]; then
  { echo "# RUN: $args"; echo "# EXIT: $got_exit"; [ -z "$kind" ] || echo "# KIND: $kind"
    cat "$actual"; } >"$case.new"
  mv "$case.new" "$case"
  exit 0
fi
expected=$(mktemp)
trap 'rm -f "$actual" "$expected" "$EPOCHCOST_CATALOG"* "$EPOCHCOST_PROFILES"*' EXIT
sed "1,${header_lines}d" "$case" >"$expected"
status=0
if [ "$got_exit" != "$want_exit" ]; then
  echo "exit status $got_exit, expected $want_exit" >&2
  status=1
fi
if ! diff -u "$expected" "$actual" >&2; then status=1; fi
exit $status
