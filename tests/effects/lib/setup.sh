# Sourced by the effect tests (tests/effects/*.sh EPOCHCOST): strict mode, `bin` (the binary),
# and a throw-away catalog and profile store in `dir`, removed on exit.
set -euo pipefail
bin=$1
dir=$(mktemp -d /tmp/epochcost-effect-XXXXXX)
trap 'rm -rf "$dir"' EXIT
export EPOCHCOST_CATALOG=$dir/catalog.sqlite EPOCHCOST_PROFILES=$dir/profiles.sqlite

# The MAPE figure (percent, without the sign) of `epochcost validate`'s summary line on stdin.
mape() { sed -n 's/.*MAPE \([0-9.]*\)%.*/\1/p' | head -1; }

# one_thread LOG OUT: the header and the six 1-thread rows of a harness log (tools/reference/
# harness_runs.sh: six models at 1 and 2 threads). Targets and sources hold quoted commas, so a
# row is matched on its "precision,optimizer,threads,gpus" (fp32, an optimizer, 1, empty) rather
# than split on commas.
one_thread() {
  { head -1 "$1"; grep -E ",fp32,[a-z]+,(,)?1,," "$1"; } >"$2"
  local rows=$(($(wc -l <"$2") - 1))
  [ "$rows" -eq 6 ] || { echo "$1: $rows 1-thread runs, expected 6" >&2; exit 1; }
}
