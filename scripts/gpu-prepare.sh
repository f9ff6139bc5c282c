#!/usr/bin/env bash
# Builds, on a machine without a GPU, what scripts/gpu-run.sh runs on the GPU
# runner, into .gpu/ (git-ignored; carry it): the dispatch GPU test binary,
# autotune, the manifest generator, and the peer-timing script and shapes.
# Needs cuda.h and libcuda for linking: bash scripts/setup-cuda-headers.sh
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .gpu
go test -c -o .gpu/dispatch.test ./dispatch
go build -o .gpu/autotune ./autotune
go build -tags nocuda -o .gpu/gen ./kernels/internal/gen
go build -o .gpu/linear ./examples/linear
go build -o .gpu/quickstart ./examples/quickstart
cp scripts/peer_cublas.py scripts/shapes-*.csv .gpu/
ls -la .gpu
