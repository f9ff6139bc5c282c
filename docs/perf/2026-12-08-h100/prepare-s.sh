# Builds call S's pack (.gpu-bin/s.txz): dispatch.test and autotune stripped, and a kbench of the swap_sq_ts tiles
# with their swap_ts twins and mc2n 64x64 (the timing's peers). From the repository root; needs
# scripts/setup-cuda-headers.sh and scripts/local-nvcc.sh once.
set -euo pipefail
mkdir -p .gpu .gpu-bin
go test -c -ldflags='-s -w' -o .gpu/dispatch.test ./dispatch
go build -ldflags='-s -w' -o .gpu/autotune ./autotune
bash docs/perf/2026-12-07-h200-h/build-kb.sh .gpu/kbench 'swap_sq_ts,swap_ts_bf16_bf16_f32_tn_16x128,swap_ts_bf16_bf16_f32_tn_32x128,mc2n_bf16_bf16_f32_tn_64x64'
rm -f .gpu-bin/*.txz
XZ_OPT=-9 tar cJf .gpu-bin/s.txz .gpu/dispatch.test .gpu/autotune .gpu/kbench
ls -l .gpu-bin
