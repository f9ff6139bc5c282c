#!/usr/bin/env bash
# Builds kbench (sm_90a) with nvcc ≥ 12.4: NVCC=/opt/c124/nvcc bash scripts/kbench/build.sh [OUT [SRC]]
# SRC: kbench.cu (16-bit ws_wgmma, beside cuBLAS) or kbench8.cu (the e4m3 kernels).
# With scripts/local-nvcc.sh's nvcc, set CUDALIB=/opt/c124/usr/lib/x86_64-linux-gnu (its
# libcudadevrt; the system's may be older).
set -euo pipefail
cd "$(dirname "$0")/../.."
NVCC=${NVCC:-nvcc}
$NVCC -std=c++17 -O3 -gencode arch=compute_90a,code=sm_90a -DGR_HOPPER -Xptxas -v -I kernels/src ${CUDALIB:+-L$CUDALIB} \
  -Xcompiler -static-libstdc++ -Xcompiler -static-libgcc -o "${1:-/tmp/kbench}" "scripts/kbench/${2:-kbench.cu}" -lpthread
