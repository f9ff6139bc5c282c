# call 1: issue 17 — first run of the 256x128 two-chain tiles (ws_wgmma 256x128 s4: register and TMA-store
# epilogues, alone and mc2n): kbench check against the float64 reference, memcheck, racecheck; timed beside the
# 128x256 tiles and cuBLAS (cublasGemmEx in kbench's process) at M = 256, 1024, 4096; ncu tensor-pipe share at
# o M = 1024; then the whole GPU suite on main's fatbins (TestMoreThan2p31Elements changed in the fourth session).
set -uo pipefail
tar xzf .gpu-bin/bins.tgz; export GEMMROUTE_KERNEL_DIR=$PWD/kernels; s=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
export CUBLAS_LIB=$(find / -xdev -name 'libcublas.so.1[0-9]*' 2>/dev/null | grep -v Lt | head -1)
t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s"; }
timeout 60 .gpu/kbench check "" 256x128 > $OUT/check.log 2>&1; t check $?; tail -1 $OUT/check.log; grep -E "WRONG|FAIL" $OUT/check.log | head -8
timeout 70 compute-sanitizer --tool memcheck .gpu/kbench memcheck "" 256x128 > $OUT/sanitize.log 2>&1; t memcheck $?; tail -2 $OUT/sanitize.log
timeout 70 compute-sanitizer --tool racecheck .gpu/kbench memcheck "" ws_wgmma_ts_bf16_bf16_f32_tn_256x128,ws_wgmma_mc2n_bf16_bf16_f32_tn_256x128 >> $OUT/sanitize.log 2>&1; t racecheck $?; tail -2 $OUT/sanitize.log
timeout 150 .gpu/kbench timeall 256,1024,4096 "256x128,128x256x64" 4096x4096,14336x4096,28672x4096,4096x14336,4096x1024 > $OUT/time.log 2>&1; t time $?
grep -v "^   " $OUT/time.log | tail -60
X="sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed.sum,sm__cycles_active.avg"
timeout 40 ncu --clock-control none --metrics $X --kernel-name regex:ws_wgmma --launch-skip 2 --launch-count 1 \
  .gpu/kbench prof 1024 ws_wgmma_bf16_bf16_f32_tn_256x128 4096x4096 1 no > $OUT/ncu.log 2>&1; t ncu $?
grep -E "Duration|hmma|inst_executed|sm__cycles" $OUT/ncu.log | head
(cd dispatch && timeout 240 ../.gpu/dispatch.test -test.timeout 230s -test.v) > $OUT/gputest.log 2>&1; t gputest $?
grep -E '^(--- FAIL|ok|FAIL|PASS)' $OUT/gputest.log | head; grep -c '^--- PASS' $OUT/gputest.log; grep -c -- '--- SKIP' $OUT/gputest.log
echo "total $(( $(date +%s) - s )) s"
