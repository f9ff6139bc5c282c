# Fourteenth session, kernel experiment (any Hopper card; name it in the report): ws_release_now (ws_ring.cuh) — a
# consumer gives its stage back once the k-tile's own wgmma retire, instead of one k-tile later — on the three best
# TMA-store tiles, kbench-only instances (tag rn) beside their shipped twins. Why: in callK2.sh (h100-2/) our consumers
# spent 29 % of their samples waiting for a stage's data, cuBLAS's ≈ 0, and the tiles with 4 stages ran ahead of
# those with 3 (ts 256x128 s4 89.7 % tensor pipe, ts 256x160 s3 83.7 %): the producer's lead looks too short.
# Predictions (before any run): at 4096 × 14336 × 4096, each rn kernel's tensor pipe ≥ its twin's + 2 points in the
# same call, and the rn ts 256x128 ≥ 91.5 %; by graph replay at M = 4096 each rn ≥ 2 % faster than its twin. If the
# consumers lose more to the missing queued wgmma than they gain in lead, rn is slower: then the lead is not it.
# (Since this run the generator makes the rn instances — ws_wgmma_rn_ts 128x256 and 256x160, ws_wgmma_rn_mc2n_ts 256x160 —
# not the 256x128 s4 one, which gained nothing; its lines here no longer find a kernel.)
set -uo pipefail
tar xzf .gpu-bin/bins.tgz; export GEMMROUTE_KERNEL_DIR=$PWD/kernels; s=$(date +%s)
export CUBLAS_LIB=$(find / -xdev -name 'libcublas.so.1[0-9]*' 2>/dev/null | grep -v Lt | head -1)
t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 100 .gpu/kbench check all _rn_ > $OUT/check.log 2>&1; t check $?; tail -1 $OUT/check.log
timeout 100 compute-sanitizer --tool memcheck .gpu/kbench memcheck all _rn_ > /tmp/mc.log 2>&1; t memcheck $?; grep -E "ERROR SUMMARY|CHECK" /tmp/mc.log | tail -2
K="ts_bf16_bf16_f32_tn_256x128x64 mc2n_ts_bf16_bf16_f32_tn_256x160x64 ts_bf16_bf16_f32_tn_128x256x64"
for k in $K; do for v in ws_wgmma_rn_$k ws_wgmma_$k; do
  echo "=== $v" >> $OUT/ncu.log
  timeout 60 ncu --clock-control none --section SpeedOfLight \
    --metrics sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed --kernel-name regex:"$v" \
    --launch-skip 2 --launch-count 1 .gpu/kbench prof 4096 $v 14336x4096 1 pers >> $OUT/ncu.log 2>&1; t "ncu $v" $?
done; done
grep -E "^===|Elapsed Cycles|hmma|L2 Cache Throughput" $OUT/ncu.log
timeout 90 ncu --clock-control none --section SourceCounters --section WarpStateStats --page source --print-source sass --csv \
  --kernel-name regex:ws_wgmma_rn_ts_bf16_bf16_f32_tn_256x128x64 --launch-skip 2 --launch-count 1 \
  .gpu/kbench prof 4096 ws_wgmma_rn_ts_bf16_bf16_f32_tn_256x128x64 14336x4096 1 pers > /tmp/src.csv 2> /tmp/src.err
t ncu-src $?; gzip -c /tmp/src.csv > $OUT/src-rn_ts-256x128.csv.gz; python3 docs/perf/2026-12-06-h200-b/stalls.py /tmp/src.csv 6
timeout 150 .gpu/kbench timeall 1024,4096 $(echo $K | tr ' ' ',') 14336x4096,6144x4096 > $OUT/time.log 2>&1; t timeall $?
grep -E "^   (cublas|.*/sk1) " $OUT/time.log | awk '{print $1, $2, $3, $5}' | sort -k2,3 -k4n
echo "total $(( $(date +%s) - s )) s"
