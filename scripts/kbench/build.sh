#!/usr/bin/env bash
# Builds kbench (sm_90a) with nvcc ≥ 12.4: NVCC=/opt/c124/nvcc bash scripts/kbench/build.sh [OUT]
set -euo pipefail
cd "$(dirname "$0")/../.."
NVCC=${NVCC:-nvcc}
$NVCC -std=c++17 -O3 -gencode arch=compute_90a,code=sm_90a -Xptxas -v -I kernels/src ${CUDALIB:+-L$CUDALIB} \
  -Xcompiler -static-libstdc++ -Xcompiler -static-libgcc -o "${1:-/tmp/kbench}" scripts/kbench/kbench.cu -lpthread
