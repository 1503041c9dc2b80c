#!/usr/bin/env bash
# Writes data/calibrations/shipped.csv: `epochcost calibrate` on every run log shipped in
# data/validation (fresh profile store and catalog, so nothing of the user's is read), keeping what
# its cross-validation keeps. With --check, fails if the file differs from what it would write in
# anything but the fitted_at dates (a test runs this, so the shipped calibrations stay the fit of
# the shipped runs). Usage: scripts/shipped-calibrations.sh EPOCHCOST [--check]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$1 mode=${2:-}
out=data/calibrations/shipped.csv
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export EPOCHCOST_PROFILES=$tmp/profiles.sqlite EPOCHCOST_CATALOG=$tmp/catalog.sqlite
logs=()
for f in data/validation/*.csv; do logs+=("@$(basename "$f" .csv)"); done
"$bin" calibrate "${logs[@]}" --dry-run --csv "$tmp/shipped.csv" >"$tmp/report.txt"
# The fitted_at column (the 10th) is the day the file was written, not part of the fit.
undated() { awk -F, 'BEGIN { OFS = "," } NR > 1 { $10 = "" } { print }' "$1"; }
if [ "$mode" = "--check" ]; then
  if ! diff -u <(undated "$out") <(undated "$tmp/shipped.csv"); then
    echo "$out is stale: run scripts/shipped-calibrations.sh $bin" >&2
    exit 1
  fi
  exit 0
fi
cp "$tmp/shipped.csv" "$out"
cat "$tmp/report.txt"
