#!/usr/bin/env bash
# Installs what epochcost needs on Debian 12 (as root; Debian packages only), then configures and
# builds it in ./build. Safe to run again. Usage: scripts/setup.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
./scripts/install-deps.sh
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build "$build" -j "$(nproc)"
