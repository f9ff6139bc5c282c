# Fourteenth session, for a card that is not the H200: the generated rn instances (ws_wgmma_rn_ts 128x256 and 256x160,
# ws_wgmma_rn_mc2n_ts 256x160, bf16 and f16) against float64 (kbench check, memcheck), then through the engine's launch
# path (TestEveryKernelOnAwkwardShapes) and in their stated reduction class (TestReductionClassesAgree: the same bits
# as every wgmma16.seq kernel). Name the card in the report.
set -uo pipefail
tar xzf .gpu-bin/bins.tgz; export GEMMROUTE_KERNEL_DIR=$PWD/kernels; s=$(date +%s)
t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 100 .gpu/kbench check all _rn_ > $OUT/check.log 2>&1; t check $?; tail -1 $OUT/check.log; grep -c PASS $OUT/check.log
timeout 100 compute-sanitizer --tool memcheck .gpu/kbench memcheck all _rn_ > /tmp/mc.log 2>&1; t memcheck $?; grep -E "ERROR SUMMARY|CHECK" /tmp/mc.log | tail -2
(cd dispatch && timeout 200 ../.gpu/dispatch.test -test.run 'TestEveryKernelOnAwkwardShapes|TestReductionClassesAgree' -test.timeout 190s -test.v) > $OUT/gputest.log 2>&1; t gputest $?
grep -E '^(--- |ok|FAIL|PASS)' $OUT/gputest.log | head; grep "wgmma16.seq" $OUT/gputest.log | head -2
