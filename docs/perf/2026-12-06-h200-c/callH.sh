# Fifteenth session, kernel-level call for a card that is not the H200 (name it in the report): first callG2.sh —
# every release-now kernel (ws_wgmma_rn_*, the 128x256 in clusters and under stream-K among them, built at the end of
# the fourteenth session and not yet run) against float64 (kbench check), memcheck, then through the engine's launch
# path and in its reduction class. Then graph replay at M = 1024 and 2048 of the 128-token TMA-store tiles (128x256,
# 128x192) and the 256x160, alone, in clusters, under stream-K, release-now or not, beside cuBLAS: how much of the
# M = 1024 gap (cuBLAS 157 µs, ours 177 µs at 14336 × 4096 on an H100, ../2026-12-06-h200-b call 4) is tile waves.
# Predictions: every rn kernel passes; each rn twin ≤ its twin's time + 1 %; on 6144 rows ts 128x192 (256 tiles,
# 1.94 waves) beats every 128x256 (192 tiles, 1.45 waves) that is not under stream-K.
set -uo pipefail
tar xzf .gpu-bin/bins.tgz; export GEMMROUTE_KERNEL_DIR=$PWD/kernels; s=$(date +%s)
t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s"; }
bash docs/perf/2026-12-06-h200-b/callG2.sh
K="ts_bf16_bf16_f32_tn_128x256x64,ts_bf16_bf16_f32_tn_128x192x64,ts_bf16_bf16_f32_tn_256x160x64"
timeout 240 .gpu/kbench timeall 1024,2048 $K 14336x4096,6144x4096,4096x4096 > $OUT/time.log 2>&1; t timeall $?
grep -E "^   (cublas|.*/sk1) " $OUT/time.log | awk '{print $1, $2, $3, $5}' | sort -k2,3 -k4n | awk '{c[$2" "$3]++} $1=="cublas" || c[$2" "$3]<=8'
echo "total $(( $(date +%s) - s )) s"
