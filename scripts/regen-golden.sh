#!/usr/bin/env bash
# Regenerates every golden expectation in tests/golden/cases from the current build.
# Review the result with `git diff tests/golden` before committing it.
# Usage: scripts/regen-golden.sh [BUILD_DIR]   (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
for case in tests/golden/cases/*.test; do
  bash tests/golden/run.sh "$build/cli/epochcost" "$case" --update
done
git --no-pager diff --stat -- tests/golden || true
