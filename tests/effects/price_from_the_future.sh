#!/usr/bin/env bash
# Regression (2026-11-29): `catalog import` took a price observed in 2999, which then stayed "the
# newest" price of its machine over every real one (catalog list, recommend). A date after
# tomorrow is a one-line error naming the file, the record and today's date, exit 1, and the
# catalog is unchanged. (Not a golden test: the message holds today's date.)
# Usage: price_from_the_future.sh EPOCHCOST
source "$(dirname "$0")/lib/setup.sh"
cd "$(dirname "$0")/../.."

"$bin" catalog list >"$dir/before.txt"
set +e
"$bin" catalog import tests/fixtures/bad/prices-future.csv --format csv >"$dir/out.txt" 2>"$dir/err.txt"
code=$?
set -e
[ "$code" = 1 ] || { echo "exit $code, expected 1" >&2; exit 1; }
want="epochcost: error: tests/fixtures/bad/prices-future.csv: aws:p3.2xlarge in us-east-1 observed"
want+=" 2999-01-01: a date in the future (today is $(date -u +%F))"
[ "$(cat "$dir/err.txt")" = "$want" ] || { echo "said: $(cat "$dir/err.txt")" >&2; exit 1; }
"$bin" catalog list >"$dir/after.txt"
cmp -s "$dir/before.txt" "$dir/after.txt" || { echo "the catalog changed" >&2; exit 1; }
echo "$(cat "$dir/err.txt")"
