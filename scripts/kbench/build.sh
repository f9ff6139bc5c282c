#!/usr/bin/env bash
# Builds kbench (sm_90a) with nvcc ≥ 12.4: NVCC=/opt/c124/nvcc bash scripts/kbench/build.sh [OUT [SRC]]
# SRC: kbench.cu (16-bit ws_wgmma, beside cuBLAS) or kbench8.cu (the e4m3 kernels).
# With scripts/local-nvcc.sh's nvcc, set CUDALIB=/opt/c124/usr/lib/x86_64-linux-gnu (its
# libcudadevrt; the system's may be older). KBENCH_FLAGS are more nvcc flags: -DGR_TRACE builds the
# trace build (kernels/src/ws_trace.cuh's stamps; kbench prof then reports them).
set -euo pipefail
cd "$(dirname "$0")/../.."
NVCC=${NVCC:-nvcc}
$NVCC -std=c++17 -O3 -gencode arch=compute_90a,code=sm_90a -DGR_HOPPER ${KBENCH_FLAGS:-} -Xptxas -v -I kernels/src ${CUDALIB:+-L$CUDALIB} \
  -Xcompiler -static-libstdc++ -Xcompiler -static-libgcc -o "${1:-/tmp/kbench}" "scripts/kbench/${2:-kbench.cu}" -lpthread
