# Fifteenth session, call 3 on a card that is not the H200 (name it in the report): why our tiles trail cuBLAS at
# M = 1024 × 14336 × 4096 (call 2: cuBLAS 154.6 µs, our best 169.9, the wave-fitted 128x224 177.3). ncu of one cold
# launch each — cuBLAS, the persistent rn_ts 128x256 and 128x224, the stream-K 128x256 — with the SMs' busiest and
# idlest active cycles (a partial last wave shows as min/max well below 1), then the stall per SASS instruction of
# the persistent rn_ts 128x224 and of cuBLAS.
# Predictions (before any run): cuBLAS tensor pipe ≥ 85 %; our 128x256 pers ≤ 78 % with SM active min/max ≤ 0.85;
# the 128x224 pers min/max ≥ 0.95 with tensor pipe ≤ 80 % — its time goes to something a tile pays once (the
# ring's fill after the previous tile's last k-tile, the epilogue's wait), seen as more stall samples on the
# consumers' full-barrier wait than at M = 4096 (../2026-12-06-h200-b call 4: 29 % there with three stages).
set -uo pipefail
tar xzf .gpu-bin/bins.tgz; export GEMMROUTE_KERNEL_DIR=$PWD/kernels; s=$(date +%s)
export CUBLAS_LIB=$(find / -xdev -name 'libcublas.so.1[0-9]*' 2>/dev/null | grep -v Lt | head -1)
t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
ncu1() {  # M name NxK split [pers]
  echo "=== $*" >> $OUT/ncu.log
  timeout 60 ncu --clock-control none --section SpeedOfLight --section LaunchStats \
    --metrics sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed,sm__cycles_active.min,sm__cycles_active.max,sm__cycles_active.avg \
    --kernel-name regex:"${2/cublas/nvjet|xmma|cutlass|gemm}" \
    --launch-skip 2 --launch-count 1 .gpu/kbench prof $1 $2 $3 $4 ${5:-} >> $OUT/ncu.log 2>&1; t "ncu $*" $?
}
ncu1 1024 cublas 14336x4096 1
ncu1 1024 ws_wgmma_rn_ts_bf16_bf16_f32_tn_128x256x64 14336x4096 1 pers
ncu1 1024 ws_wgmma_rn_ts_bf16_bf16_f32_tn_128x224x64 14336x4096 1 pers
ncu1 1024 ws_wgmma_sk_ts_bf16_bf16_f32_tn_128x256x64 14336x4096 1
ncu1 4096 ws_wgmma_rn_ts_bf16_bf16_f32_tn_128x224x64 14336x4096 1 pers
grep -E "^===|Kernel Name|nvjet|Elapsed Cycles|Duration|hmma|sm__cycles_active|Grid Size|Cluster Size|L2 Cache Throughput|DRAM Throughput" $OUT/ncu.log | grep -v "^==PROF"
for k in ws_wgmma_rn_ts_bf16_bf16_f32_tn_128x224x64 cublas; do
  timeout 90 ncu --clock-control none --section SourceCounters --section WarpStateStats --page source --print-source sass --csv \
    --kernel-name regex:"${k/cublas/nvjet|xmma|cutlass|gemm}" --launch-skip 2 --launch-count 1 \
    .gpu/kbench prof 1024 $k 14336x4096 1 $( [ $k = cublas ] || echo pers ) > /tmp/src.csv 2> /tmp/src.err
  t "ncu-src $k" $?; gzip -c /tmp/src.csv > $OUT/src-1024-${k#ws_wgmma_}.csv.gz; python3 docs/perf/2026-12-06-h200-b/stalls.py /tmp/src.csv 8
done
echo "total $(( $(date +%s) - s )) s"
