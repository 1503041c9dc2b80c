#!/usr/bin/env bash
# Writes docs/bad-inputs.md from the golden error cases (tests/golden/cases/*.test with a
# "# KIND:" line): every kind of bad input tried, the command, and what epochcost says, as the
# tests assert it byte for byte. With --check, fails if the file is not what it would write (a
# test runs this, so the document stays true). Usage: scripts/bad-inputs-doc.sh [--check]
set -euo pipefail
cd "$(dirname "$0")/.."
out=docs/bad-inputs.md

cell() {  # a Markdown table cell holding text as code: pipes escaped, backticks allowed
  local text=${1//|/\\|}
  printf '`` %s ``' "$text"
}

generate() {
  cat <<'HEAD'
# Bad inputs and what epochcost says

Every bad input below is a golden test (`tests/golden/cases/NAME.test`): the test runs the command
on a fresh catalog and profile store and asserts the exit status and the output byte for byte.
This page is generated from those cases by `scripts/bad-inputs-doc.sh`, and the test
`docs_bad_inputs_current` fails when it is stale. The rule the cases check: one line, naming the
file (and line, record or field) or the option, saying what is wrong; exit status 1 for a bad
input, 2 for a malformed command line; nothing stored changes (imports are single transactions:
`CatalogTest` and `DurabilityTest`). Inputs no one wrote by hand are covered by the fuzzers
(`docs/reliability.md`), which check the same one-line rule on every input they generate. One
bad input's message names the machine's own count, so no golden output can hold it: a thread
count above this machine's logical processors (`epochcost profile mnist_mlp --threads 100000`:
`epochcost: error: --threads 100000: this machine has 2 hardware threads`; it had crashed the
OpenMP runtime), checked by the test `effect.threads_above_hardware`.

HEAD
  local kinds
  kinds=$(sed -s -n '3s/^# KIND: //p' tests/golden/cases/*.test | sort -u)
  while IFS= read -r kind; do
    [ -n "$kind" ] || continue
    printf '## %s\n\n| Case | Command | Exit | What epochcost says |\n|---|---|---|---|\n' "$kind"
    for c in tests/golden/cases/*.test; do
      [ "$(sed -n '3s/^# KIND: //p' "$c")" = "$kind" ] || continue
      local exit_status args said
      exit_status=$(sed -n 's/^# EXIT: //p' "$c" | head -n 1)
      [ "$exit_status" != 0 ] || continue
      args=$(sed -n 's/^# RUN: //p' "$c" | head -n 1 | sed 's/"\$bin"/epochcost/g')
      said=$(sed '1,3d' "$c" | sed ':a;N;$!ba;s/\n/ ⏎ /g')
      printf '| %s | %s | %s | %s |\n' "$(basename "$c" .test)" "$(cell "epochcost $args")" \
        "$exit_status" "$(cell "$said")"
    done
    echo
  done <<<"$kinds"
}

if [ "${1:-}" = "--check" ]; then
  if ! diff -u "$out" <(generate) >&2; then
    echo "$out is stale: run scripts/bad-inputs-doc.sh" >&2
    exit 1
  fi
else
  generate >"$out"
fi
