# call 1: issue 17 — first run of the TMA-store epilogue kernels (_ts_: ws_wgmma_ts, _mc2_ts, _mc2n_ts) and of the
# interleaved split-K kernels (_il_: ws_wgmma_il): kbench check against the float64 reference, memcheck, racecheck
# (the staging buffer's reuse); the engine's awkward table on every kernel of the catalog (mc2n, _ts_, _il_ included);
# each family timed beside cuBLAS (cublasGemmEx in kbench's process); ncu of mc2_ts at 4096 x 14336 x 4096 (is the
# uncoalesced-store warning gone?) and per-SASS-instruction stall samples of our 128x256 and of cuBLAS at o M = 1024.
set -uo pipefail
tar xzf .gpu-bin/bins.tgz; export GEMMROUTE_KERNEL_DIR=$PWD/kernels; s=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
export CUBLAS_LIB=$(find / -xdev -name 'libcublas.so.1[0-9]*' 2>/dev/null | grep -v Lt | head -1)
t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s"; }
timeout 60 .gpu/kbench check "" _ts_,_il_ > $OUT/check.log 2>&1; t check $?; tail -1 $OUT/check.log; grep -E "WRONG|FAIL" $OUT/check.log | head -8
timeout 70 compute-sanitizer --tool memcheck .gpu/kbench memcheck "" _ts_,_il_ > $OUT/sanitize.log 2>&1; t memcheck $?; tail -2 $OUT/sanitize.log
timeout 70 compute-sanitizer --tool racecheck .gpu/kbench memcheck "" ws_wgmma_ts_bf16_bf16_f32_tn_128x256,mc2_ts_bf16_bf16_f32_tn_128x192 >> $OUT/sanitize.log 2>&1; t racecheck $?; tail -2 $OUT/sanitize.log
(cd dispatch && timeout 110 ../.gpu/dispatch.test -test.v -test.timeout 100s -test.run '^TestEveryKernelOnAwkwardShapes$') > $OUT/awkward.log 2>&1; t awkward $?
grep -E '^(--- |    --- |ok|FAIL|PASS)|wrong|Error' $OUT/awkward.log | head -20
timeout 90 .gpu/kbench timeall 1024,4096 "_ts_,128x256x64,128x192x64" 4096x4096,14336x4096,28672x4096,4096x14336 > $OUT/time.log 2>&1; t time-ts $?
timeout 60 .gpu/kbench timeall 64,128,256 "_il_,128x96x64,64x96x64" 6144x4096,4096x4096,5120x4096 >> $OUT/time.log 2>&1; t time-il $?
grep -v "^   " $OUT/time.log | tail -40
X="sm__cycles_active.avg,dram__bytes_read.sum,dram__bytes_write.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed.sum"
timeout 45 ncu --clock-control none --section SpeedOfLight --section MemoryWorkloadAnalysis --section SourceCounters --metrics $X \
  --kernel-name regex:ws_wgmma --launch-skip 2 --launch-count 1 .gpu/kbench prof 4096 ws_wgmma_mc2_ts_bf16_bf16_f32_tn_128x256 14336x4096 1 pers > $OUT/ncu.log 2>&1; t ncu-ts $?
grep -E "Duration|uncoalesced|excessive|dram__|hmma|inst_executed|sm__cycles" $OUT/ncu.log | head -20
src() {  # tag M name NxK split pers: PC-sampled stalls per SASS instruction of the third launch
  local re=ws_wgmma; [ "$3" = cublas ] && re="nvjet|xmma|cutlass|gemm"; local tag=$1; shift
  timeout 45 ncu --clock-control none --section WarpStateStats --section SourceCounters --import-source no -f -o /tmp/$tag \
    --kernel-name regex:"$re" --launch-skip 2 --launch-count 1 .gpu/kbench prof "$@" > /tmp/$tag.log 2>&1
  ncu --import /tmp/$tag.ncu-rep --page source --print-source sass --csv > $OUT/src-$tag.csv 2>&1
  ncu --import /tmp/$tag.ncu-rep --page details --section WarpStateStats >> $OUT/stalls.log 2>&1; t "src $tag" $?
}
src ours 1024 ws_wgmma_bf16_bf16_f32_tn_128x256 4096x4096 1 no; src cublas 1024 cublas 4096x4096 1 no
wc -c $OUT/src-*.csv; head -3 $OUT/src-ours.csv | cut -c1-400; echo "total $(( $(date +%s) - s )) s"
