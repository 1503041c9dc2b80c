#!/usr/bin/env bash
# Installs the Debian 12 packages epochcost builds with (as root), plus any named on the command
# line; installs nothing that is already there. Usage: scripts/install-deps.sh [PACKAGE...]
set -euo pipefail
packages=(
  build-essential cmake pkg-config
  libboost-graph-dev libeigen3-dev libdnnl-dev libblas-dev libcli11-dev nlohmann-json3-dev
  libsqlite3-dev libonnx-dev libprotobuf-dev protobuf-compiler
  libgtest-dev libgmock-dev libbenchmark-dev
  libtorch-dev
  "$@"
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
