#!/usr/bin/env bash
# Builds, from a fresh checkout on a machine without a GPU, what callE.sh runs: the engine's GPU test binary and a
# kbench of the instances the call names, packed into .gpu-bin/b.txz (xz: the device carries the tree and 64 MiB in
# all). Needs `bash scripts/setup-cuda-headers.sh` and `bash scripts/local-nvcc.sh` once (≈ 5 min); this, ≈ 3 min.
set -euo pipefail
cd "$(dirname "$0")/../../.."
here=docs/perf/2026-12-07-h200-h
mkdir -p .gpu .gpu-bin
go test -c -o .gpu/dispatch.test ./dispatch
bash $here/build-kb.sh .gpu/kbench '_ks_ts_,sk_tp_sh_ts,_128x64x64_,sk_ts_bf16_bf16_f32_tn_128x192,sk_sh_ts_bf16_bf16_f32_tn_128x192,ws_wgmma_ts_bf16_bf16_f32_tn_128x128,ws_wgmma_ts_bf16_bf16_f32_tn_128x256,ws_wgmma_ts_f16_f16_f32_tn_128x128,ws_wgmma_ts_f16_f16_f32_tn_128x256' 2>&1 | grep -E 'instances|error' || true
# kbench-reg: ks_ts alone with ks-reg.patch (the along walk's running sum in registers for tiles of ≤ 128 columns)
rm -rf /tmp/ksreg-src && cp -r kernels/src /tmp/ksreg-src && patch -s -d /tmp/ksreg-src -p3 < $here/ks-reg.patch
SRC=/tmp/ksreg-src bash $here/build-kb.sh .gpu/kbench-reg '_ks_ts_,ws_wgmma_ts_bf16_bf16_f32_tn_128x64,ws_wgmma_ts_bf16_bf16_f32_tn_128x128,ws_wgmma_ts_f16_f16_f32_tn_128x64,ws_wgmma_ts_f16_f16_f32_tn_128x128' 2>&1 | grep -E 'instances|error' || true
tar cJf .gpu-bin/b.txz .gpu/dispatch.test .gpu/kbench .gpu/kbench-reg
ls -l .gpu-bin/b.txz
