#!/usr/bin/env bash
# Builds, on a machine without a GPU, what scripts/gpu-run.sh runs on the GPU
# runner, into .gpu/ (git-ignored; carry it): the dispatch GPU test binary,
# autotune, the manifest generator, and the peer-timing script and shapes.
# Needs cuda.h and libcuda for linking: bash ../shared/gpu/setup-cuda-headers.sh
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .gpu
go test -c -o .gpu/dispatch.test ./dispatch
go build -o .gpu/autotune ./autotune
go build -tags nocuda -o .gpu/gen ./kernels/internal/gen
go build -o .gpu/linear ./examples/linear 2>/dev/null || true
shared=${SHARED:-../shared/gpu}
cp "$shared/peer_cublas.py" "$shared/shapes-llama3-8b.csv" .gpu/
cp scripts/shapes-*.csv .gpu/ 2>/dev/null || true
ls -la .gpu
