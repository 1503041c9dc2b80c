#!/usr/bin/env bash
# Packs this build's epochcost and GPU test binaries, stripped, with the Debian libraries they
# need that a CUDA machine image may lack (oneDNN, ONNX, protobuf, SQLite, OpenMP, the system
# BLAS with its Fortran runtime), into .devbin/bundle.tar.xz, for tools/gpu/measure.sh on a lent
# GPU machine (the device tool carries .devbin; .gitignore keeps it out of git). CUDA, cuBLAS
# (opened at run time from the library path measure.sh sets) and cuDNN come from that machine.
# Usage: tools/gpu/bundle.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
stage=$(mktemp -d)
mkdir -p "$stage/bin" "$stage/lib" .devbin
strip -o "$stage/bin/epochcost" "$build/cli/epochcost"
# The CPU profiler times each BLAS product in this program, found beside epochcost.
strip -o "$stage/bin/epochcost-blas-probe" "$build/cli/epochcost-blas-probe"
strip -o "$stage/bin/profiler_tests" "$build/tests/profiler_tests"
# The system BLAS is opened at run time (profiler/cpu/aten_kernels.cpp), so ldd of epochcost does
# not list it: it and its own dependencies are found through the loader cache.
blas=$(ldconfig -p | awk '$1 == "libblas.so.3" && /x86-64/ {print $NF; exit}')
[ -n "$blas" ] || { echo "bundle.sh: libblas.so.3 not installed (libblas-dev)" >&2; exit 1; }
path_of() {
  { ldd "$build/cli/epochcost"; ldd "$blas"; echo "libblas.so.3 => $blas"; } |
    awk -v l="$1" '$1 == l {print $3; exit}'
}
for lib in libdnnl.so.2 libonnx.so.1 libonnx_proto.so.1 libprotobuf.so.32 libsqlite3.so.0 \
           libgomp.so.1 libOpenCL.so.1 libblas.so.3 libopenblas.so.0 libgfortran.so.5 \
           libquadmath.so.0; do
  path=$(path_of "$lib")
  [ -n "$path" ] || { echo "bundle.sh: cannot find $lib" >&2; exit 1; }
  cp -L "$path" "$stage/lib/$lib"
done
tar -C "$stage" -cJf .devbin/bundle.tar.xz bin lib
rm -rf "$stage"
ls -la .devbin/bundle.tar.xz
