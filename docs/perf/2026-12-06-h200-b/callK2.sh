# Fourteenth session, kernel-level (any Hopper card; name it in the report). callK.sh ran on an H100 (h100/): by graph
# replay the TMA-store 256x160 in clusters along N (mc2n_ts) matched cuBLAS at M = 4096 and 8192 (14336 rows: 659 / 658
# µs, 1327 / 1315; 28672 rows at 4096: 1340 / 1407), while ncu had profiled the register-epilogue variants, ≈ 12 %
# slower by graph replay. At M = 1024 the gap stays (14336 rows 179 / 154 µs, 6144 rows 83 / 73): tile waves.
# (1) ncu of the winners and cuBLAS at 4096 × 14336 × 4096, the source page (stall per SASS instruction) of mc2n_ts;
# (2) which kernel cuBLAS runs at M = 1024 on 14336 and 6144 rows (name, grid, cycles, tensor pipe);
# (3) graph replay at M = 1024 and 2048 of the stream-K and 128x192 tiles beside the BM = 256 ones.
# Predictions (before any run): (1) mc2n_ts 256x160 ≤ 0.92× the cycles of the register 256x160 (1,162 k on the H100)
# and tensor pipe ≥ 85 %; (3) no kernel of ours within 5 % of cuBLAS at M = 1024 on 14336 and 6144 rows (waves:
# 256x160 gives 2.7 waves of tiles there, 128x256 3.4, 256x128 on 6144 rows 1.45).
set -uo pipefail
tar xzf .gpu-bin/bins.tgz; export GEMMROUTE_KERNEL_DIR=$PWD/kernels; s=$(date +%s)
export CUBLAS_LIB=$(find / -xdev -name 'libcublas.so.1[0-9]*' 2>/dev/null | grep -v Lt | head -1)
t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
ncu1() {  # M name NxK split [pers]
  echo "=== $*" >> $OUT/ncu.log
  timeout 60 ncu --clock-control none --section SpeedOfLight --section LaunchStats \
    --metrics sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed --kernel-name regex:"${2/cublas/nvjet|xmma|cutlass|gemm}" \
    --launch-skip 2 --launch-count 1 .gpu/kbench prof $1 $2 $3 $4 ${5:-} >> $OUT/ncu.log 2>&1; t "ncu $*" $?
}
ncu1 4096 ws_wgmma_mc2n_ts_bf16_bf16_f32_tn_256x160x64 14336x4096 1 pers
ncu1 4096 ws_wgmma_ts_bf16_bf16_f32_tn_256x160x64 14336x4096 1 pers
ncu1 4096 ws_wgmma_ts_bf16_bf16_f32_tn_256x128x64 14336x4096 1 pers
ncu1 4096 cublas 14336x4096 1
ncu1 1024 cublas 14336x4096 1
ncu1 1024 cublas 6144x4096 1
grep -E "^===|Kernel Name|nvjet|Elapsed Cycles|Duration|hmma|Grid Size|Cluster Size|L2 Cache Throughput" $OUT/ncu.log | grep -v "^==PROF"
for k in ws_wgmma_mc2n_ts_bf16_bf16_f32_tn_256x160x64 cublas; do  # stalls per SASS instruction: ours, and cuBLAS's
  timeout 90 ncu --clock-control none --section SourceCounters --section WarpStateStats --page source --print-source sass --csv \
    --kernel-name regex:"${k/cublas/nvjet|xmma|cutlass|gemm}" --launch-skip 2 --launch-count 1 \
    .gpu/kbench prof 4096 $k 14336x4096 1 $( [ $k = cublas ] || echo pers ) > /tmp/src.csv 2> /tmp/src.err
  t "ncu-src $k" $?; gzip -c /tmp/src.csv > $OUT/src-${k#ws_wgmma_}.csv.gz
done
timeout 200 .gpu/kbench timeall 1024,2048 ts_bf16_bf16_f32_tn_256x128x64,ts_bf16_bf16_f32_tn_256x160x64,sk_ts_bf16_bf16_f32_tn_128x256x64,sk_ts_bf16_bf16_f32_tn_128x192x64,ws_wgmma_ts_bf16_bf16_f32_tn_128x192x64,mc2_ts_bf16_bf16_f32_tn_128x192x64,pp_mc2_bf16_bf16_f32_tn_128x128x64,sk_bf16_bf16_f32_tn_128x128x64 \
  14336x4096,6144x4096,4096x4096,28672x4096 > $OUT/time-mid.log 2>&1; t timeall $?; grep -vE "^\s*$|^   |active at once" $OUT/time-mid.log
echo "total $(( $(date +%s) - s )) s"
