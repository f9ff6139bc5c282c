# Ninth session, call 0 (written by the eighth session):
# issue 17 — first run of the large shifted tiles (ws_wgmma_sh_ts 128x256 / 128x192, ws_wgmma_sk_sh_ts 128x256 /
# 128x192 / 128x128: the last token tile starts at M − BM where it would reach past M). kbench check against float64,
# memcheck, `kbench same` (D bit-identical to the unshifted twins; the control must differ), the engine's kernel-wide
# GPU tests, then the edges beside the twins and cuBLAS.
# Prediction: at M = 1449 (87 of 128 rows of the last token tile past M) the sh twins ≥ 5 % faster than their twins;
# within 2 % at M = 768 and 1536 (nothing past M).
# Needs in .gpu-bin/bins.tgz: .gpu/kbench (scripts/kbench/build.sh) and .gpu/dispatch.test (scripts/gpu-prepare.sh).
set -uo pipefail
tar xzf .gpu-bin/bins.tgz; export GEMMROUTE_KERNEL_DIR=$PWD/kernels; s=$(date +%s)
export CUBLAS_LIB=$(find / -xdev -name 'libcublas.so.1[0-9]*' 2>/dev/null | grep -v Lt | head -1)
t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s"; }
timeout 90 .gpu/kbench check "" sh_ts > $OUT/check.log 2>&1; t check $?; tail -1 $OUT/check.log; grep -E "FAIL|mismatch" $OUT/check.log | head -5
timeout 90 compute-sanitizer --tool memcheck .gpu/kbench memcheck "" sh_ts > /tmp/sanitize.log 2>&1; t memcheck $?; grep "ERROR SUMMARY" /tmp/sanitize.log
timeout 120 .gpu/kbench same 300,725,1449,2897 sh_ts_bf16_bf16_f32_tn_128x2,sh_ts_bf16_bf16_f32_tn_128x1 4096x4096 > $OUT/same.log 2>&1; t same $?; grep -c "same ok" $OUT/same.log; grep -E "SAME" $OUT/same.log | tail -3
R='TestEveryKernelOnAwkwardShapes|TestMoreThan2p31Elements|TestReductionClassesAgree|TestSplitKDeterministic|TestGraphCaptureMatchesDirect|TestBadInputLaunchesNothing'
(cd dispatch && timeout 120 ../.gpu/dispatch.test -test.run "$R" -test.timeout 110s -test.v) > /tmp/gputest.log 2>&1; t gputest $?
grep -E '^(--- FAIL|--- SKIP|ok|FAIL|PASS)' /tmp/gputest.log | head -10
E=ts_bf16_bf16_f32_tn_128x256,sh_ts_bf16_bf16_f32_tn_128x256,ts_bf16_bf16_f32_tn_128x192,sh_ts_bf16_bf16_f32_tn_128x192,sk_ts_bf16_bf16_f32_tn_128x,sk_sh_ts_bf16_bf16_f32_tn_128x
timeout 260 .gpu/kbench timeall 513,725,768,1024,1449,1536,2897 "$E" 4096x4096,6144x4096,28672x4096 > $OUT/time-edges.log 2>&1; t time-edges $?
grep -v "^   " $OUT/time-edges.log | grep -E "^ +[0-9]"
echo "total $(( $(date +%s) - s )) s"
