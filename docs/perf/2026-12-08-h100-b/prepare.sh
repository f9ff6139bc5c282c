# Builds the next GPU session's one pack (.gpu-bin/n.txz), which calls S, G, P, Q, probe 17, V and R all use, so that they
# run back to back on one warm machine: dispatch.test and autotune at HEAD; autotune at 6a6fce9 (before streamKGrid)
# as .gpu/autotune-old (call G); kbench of the swap_sq_ts tiles and their peers (call S); kb17, the stream-K
# 128-row tiles (probe 17). From the repository root, after scripts/setup-cuda-headers.sh and scripts/local-nvcc.sh;
# ≈ 3 min. The tree with the pack must stay under the device's 64 MiB (52.4 MB tracked + ≈ 8 MB).
set -euo pipefail
mkdir -p .gpu .gpu-bin
go test -c -ldflags='-s -w' -o .gpu/dispatch.test ./dispatch
go build -ldflags='-s -w' -o .gpu/autotune ./autotune
d=$(mktemp -d); git worktree add -q --detach "$d" 6a6fce9
(cd "$d" && go build -ldflags='-s -w' -o "$OLDPWD/.gpu/autotune-old" ./autotune)
git worktree remove --force "$d"
kb=docs/perf/2026-12-07-h200-h/build-kb.sh
bash $kb .gpu/kbench 'swap_sq_ts,swap_ts_bf16_bf16_f32_tn_16x128,swap_ts_bf16_bf16_f32_tn_32x128,mc2n_bf16_bf16_f32_tn_64x64'
bash $kb .gpu/kb17 'sk_sh_ts_bf16_bf16_f32_tn_128x1,sk_tp_sh_ts_bf16_bf16_f32_tn_128x1,ws_wgmma_sh_ts_bf16_bf16_f32_tn_128x128,ws_wgmma_ts_bf16_bf16_f32_tn_128x128'
KBENCH_FLAGS=-DGR_TRACE bash $kb .gpu/kbq 'sk_tp_sh_ts_bf16_bf16_f32_tn_128x192'  # call Q (docs/perf/2026-12-08-c)
rm -f .gpu-bin/*.txz
XZ_OPT=-9 tar cJf .gpu-bin/n.txz .gpu/dispatch.test .gpu/autotune .gpu/autotune-old .gpu/kbench .gpu/kb17 .gpu/kbq
ls -l .gpu-bin
# the device refuses a tree (tracked and untracked-not-ignored files, and the carried paths) over 64 MiB
t=$( { git ls-files -z; git ls-files -z --others --exclude-standard; } | xargs -0 du -cb | tail -1 | cut -f1)
p=$(du -cb .gpu-bin | tail -1 | cut -f1)
echo "tree $t B + pack $p B = $((t + p)) B of 67108864"
[ $((t + p)) -lt 67108864 ] || { echo "over the device's 64 MiB: shrink the pack or the tree" >&2; exit 1; }
