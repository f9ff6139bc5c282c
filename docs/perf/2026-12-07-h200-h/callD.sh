# Twenty-sixth session, call D (any Hopper card): the twenty-fourth session's call B (part (1) of
# docs/perf/2026-12-07-h200-g/callC.sh), without ws_wgmma_ks_ts (its reduction is being reworked: a part waited on a
# block of higher index). ws_wgmma_sk_tp_sh_ts 256x128 / 256x160 (stream-K of planned parts over two 64-row blocks a
# consumer): kbench check (float64, awkward shapes, tail splits 1, 2, 3, 8, reruns' bits), memcheck, the engine's
# stream-K test, a timing of every sk_tp tile at o (4096 × 4096), qkv (6144 × 4096), gate_up (28672 × 4096),
# M = 512, 768, 1024, 1200, 2048; sh_ts 128x64 checked and timed beside ts 128x64 at o M = 129, 182, 256; the
# ws_stream_k_shift hazard (kbench same, sk_sh_ts 128x192 against sk_ts, N = K = 4096, M = 700…1000).
# Predictions (before the run): correct everywhere; 256x128 at its best split within 5 % of the best 128-row tp tile
# at o M = 1200 and gate_up M = 1024, and ahead (≥ 5 %) at gate_up M = 2048; sh_ts 128x64 at o M = 182 30.6 → ≤ 20 µs;
# the hazard shows at M = 800 (rows 672…767 differ) — if not, it is not reached at these shapes.
# usage: bash callD.sh   (carry .gpu: dispatch.test and a kbench from build-kb.sh
#   'sk_tp_sh_ts,_128x64x64_,sk_ts_bf16_bf16_f32_tn_128x192,sk_sh_ts_bf16_bf16_f32_tn_128x192', this commit)
set -uo pipefail
s=$(date +%s); S=$OUT/summary.txt
t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s" | tee -a $S; }
say() { tee -a $S; }
export GEMMROUTE_KERNEL_DIR=$PWD/kernels
mkdir -p /tmp/c
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | say
timeout 40 .gpu/kbench check "" "sk_tp_sh_ts_bf16_bf16_f32_tn_256,sk_tp_sh_ts_f16_f16_f32_tn_256" > /tmp/c/check256.log 2>&1; t check256 $?; tail -1 /tmp/c/check256.log | say
grep -E '^FAIL|mismatch|differs' /tmp/c/check256.log | head -10 | say
timeout 30 compute-sanitizer --tool memcheck .gpu/kbench memcheck "" "sk_tp_sh_ts_bf16_bf16_f32_tn_256" > /tmp/c/mem256.log 2>&1; t memcheck256 $?; tail -1 /tmp/c/mem256.log | say
(cd dispatch && timeout 90 ../.gpu/dispatch.test -test.count=1 -test.v -test.run '^TestStreamKDeterministicAndReplayable$' > /tmp/c/gpu-test.log 2>&1); t gpu-test $?
grep -E '^(--- |ok|FAIL|PASS)' /tmp/c/gpu-test.log | grep -v -- '--- PASS' | head -20 | say; grep -E '^\s+(Error|Messages)' /tmp/c/gpu-test.log | head -6 | say
timeout 120 .gpu/kbench timeall 512,768,1024,1200,2048 "sk_tp_sh_ts_bf16" 4096x4096,6144x4096,28672x4096 > $OUT/time256.log 2>&1; t timeall256 $?
timeout 20 .gpu/kbench check "" "sh_ts_bf16_bf16_f32_tn_128x64" > /tmp/c/check64.log 2>&1; t check64 $?; tail -1 /tmp/c/check64.log | say
timeout 30 .gpu/kbench timeall 129,182,256 "ts_bf16_bf16_f32_tn_128x64" 4096x4096 > $OUT/time64.log 2>&1; t timeall64 $?
timeout 30 .gpu/kbench same 700,800,900,1000 "sk_sh_ts_bf16_bf16_f32_tn_128x192" 4096x4096 > /tmp/c/same-sh.log 2>&1; t same-sh $?; tail -1 /tmp/c/same-sh.log | say
tar czf $OUT/c.tgz -C /tmp/c .
