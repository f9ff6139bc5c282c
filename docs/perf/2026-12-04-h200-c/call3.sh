# Eighth session, call 3: issue 17 — first run of ws_wgmma_sh_ts / swap_sh_ts (ws_schedule_shift: the last token tile,
# where it would reach past M, starts at M − BM, so no row past M is loaded; the rows it shares with the tile before are
# stored again). Correctness: kbench check against float64 (its awkward shapes include M = 255, 257, 1100, 200 with
# split-K 4), memcheck, the engine's kernel-wide GPU tests, and `kbench same`: D bit-identical to the unshifted twin's
# (split-K 1 and 2; the control — the twin's split-K 1 against 2 — must differ, or the data could not show an order).
# Then the edges beside the twins and cuBLAS.
# Prediction: ts 64x96 at o (4096 × 4096): M = 65 18.1 → ≤ 15.0 µs, M = 129 21.7 → ≤ 14.5 µs (as at M = 91 and 182).
set -uo pipefail
tar xzf .gpu-bin/bins.tgz; export GEMMROUTE_KERNEL_DIR=$PWD/kernels; s=$(date +%s)
export CUBLAS_LIB=$(find / -xdev -name 'libcublas.so.1[0-9]*' 2>/dev/null | grep -v Lt | head -1)
t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s"; }
timeout 60 .gpu/kbench check "" sh_ts > $OUT/check.log 2>&1; t check $?; tail -1 $OUT/check.log; grep -E "WRONG|FAIL|mismatch" $OUT/check.log | head -5
timeout 60 compute-sanitizer --tool memcheck .gpu/kbench memcheck "" sh_ts > /tmp/sanitize.log 2>&1; t memcheck $?; grep "ERROR SUMMARY" /tmp/sanitize.log
timeout 60 .gpu/kbench same 65,91,129,191,255,1000 sh_ts 4096x4096 > $OUT/same.log 2>&1; t same $?; grep -E "SAME|control" $OUT/same.log | head -3; tail -1 $OUT/same.log
R='TestEveryKernelOnAwkwardShapes|TestMoreThan2p31Elements|TestReductionClassesAgree|TestSplitKDeterministic|TestGraphCaptureMatchesDirect|TestBadInputLaunchesNothing'
(cd dispatch && timeout 120 ../.gpu/dispatch.test -test.run "$R" -test.timeout 110s -test.v) > /tmp/gputest.log 2>&1; t gputest $?
grep -E '^(--- FAIL|--- SKIP|ok|FAIL|PASS)' /tmp/gputest.log | head -10
E=ts_bf16_bf16_f32_tn_64x96,sh_ts_bf16_bf16_f32_tn_64x96,ts_bf16_bf16_f32_tn_128x96,sh_ts_bf16_bf16_f32_tn_128x96,ts_bf16_bf16_f32_tn_128x128,sh_ts_bf16_bf16_f32_tn_128x128,swap_ts_bf16_bf16_f32_tn_32x128x64,swap_sh_ts_bf16_bf16_f32_tn_32x128,swap_ts_bf16_bf16_f32_tn_64x128x64,swap_sh_ts_bf16_bf16_f32_tn_64x128
timeout 200 .gpu/kbench timeall 48,64,65,80,96,129,182,192,200 "$E" 4096x4096,6144x4096 > $OUT/time-edges.log 2>&1; t time-edges $?
grep -E "^   (cublas|ws_wgmma_(sh_)?ts_bf16_bf16_f32_tn_64x96x64_w8_s10_a16/sk1) " $OUT/time-edges.log | grep "N=4096 "
grep -v "^   " $OUT/time-edges.log | grep -E "^ +[0-9]"
echo "total $(( $(date +%s) - s )) s"
