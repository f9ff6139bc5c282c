# Tenth session, call B (call A again after its kbench fix: its launch bounds gave BN = 192 tiles 384 threads, and its
# candidates left swap tiles out at M > 256; call A ran on an H100): issue 17 — first run of the wave-fitted swap tiles (ws_wgmma_swap_wf_ts, weights × tokens
# 128 x {104, 136, 152, 176, 208} and 192 x {104, 136, 176}, BN = 192 three consumer warpgroups): kbench check
# against float64, memcheck, the engine's kernel-wide GPU tests, then the buckets' edges at M ≥ 512 beside our
# large tiles and cuBLAS (kbench timeall, graph replay, same process).
# Predictions (written before the run): o 4096x4096 M = 513 swap_ts 136x128 ≤ 28 µs (our best last session 33.2,
# cuBLAS 25.3–29.1); o M = 1025 swap_ts 176x192 ≤ 54 µs; qkv 6144x4096 M = 513 swap_ts 136x192 ≥ 5 % faster than
# our best large tile.
# Needs in .gpu-bin/bins.tgz: .gpu/kbench (scripts/kbench/build.sh) and .gpu/dispatch.test (scripts/gpu-prepare.sh).
set -uo pipefail
tar xzf .gpu-bin/bins.tgz; export GEMMROUTE_KERNEL_DIR=$PWD/kernels; s=$(date +%s)
export CUBLAS_LIB=$(find / -xdev -name 'libcublas.so.1[0-9]*' 2>/dev/null | grep -v Lt | head -1)
t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s"; }
W=swap_wf_ts
timeout 90 .gpu/kbench check "" $W > $OUT/check.log 2>&1; t check $?; tail -1 $OUT/check.log; grep -E "FAIL|mismatch" $OUT/check.log | head -5
timeout 90 compute-sanitizer --tool memcheck .gpu/kbench memcheck "" $W > /tmp/sanitize.log 2>&1; t memcheck $?; grep "ERROR SUMMARY" /tmp/sanitize.log
R='TestEveryKernelOnAwkwardShapes|TestMoreThan2p31Elements|TestReductionClassesAgree|TestSplitKDeterministic|TestGraphCaptureMatchesDirect|TestBadInputLaunchesNothing'
(cd dispatch && timeout 120 ../.gpu/dispatch.test -test.run "$R" -test.timeout 110s -test.v) > /tmp/gputest.log 2>&1; t gputest $?
grep -E '^(--- FAIL|--- SKIP|ok|FAIL|PASS)' /tmp/gputest.log | head -10
E=swap_wf_ts_bf16,sk_ts_bf16_bf16_f32_tn_128x,ws_wgmma_ts_bf16_bf16_f32_tn_128x256,ws_wgmma_mc2_ts_bf16_bf16_f32_tn_128x256
timeout 300 .gpu/kbench timeall 512,513,768,1024,1025,2048,2049 "$E" 4096x4096,6144x4096,28672x4096,4096x14336 > $OUT/time-edges.log 2>&1; t time-edges $?
grep -v "^   " $OUT/time-edges.log | grep -E "^ +[0-9]"
echo "total $(( $(date +%s) - s )) s"
