# Call E (any Hopper card; the twenty-fifth session's call C with ws_wgmma_ks_ts's reworked reduction, and call D):
# (1) ws_wgmma_ks_ts (ws_splitfixed.cuh, reworked this session so that no block waits for another: a block a part
#     where the parts fit the SMs, the last part of a tile to arrive summing them in the reduce's order; else each
#     block running its tiles' parts in turn, the running sum in its own slot) — kbench check (S = 1, 2, 3, 8, reruns'
#     bits), memcheck, kbench same against the ts twins' workspace split-K + reduce at S = 1, 2, 3, 4, 8 (M = 1, 7,
#     300, 1024; 4096 × 4096 and 776 × 5128: both walks), the engine's TestReductionClassesAgree (split-K 1, 2, 4 in
#     every class), TestSplitFixedTwoStreams (two streams at once, both walks), TestBatchInvariantRowsAtSplit (the
#     batch-invariant mode at a measured split-K 2: rows bit-identical to alone at M = 1…4096) and the stream-K test; then a timing of
#     ks_ts against the ts twins (split-K through the workspace) and cuBLAS at M = 129, 192, 256, 512, 1024 (kbench
#     times no 128-row tile below M = 65).
#     Predictions: check, memcheck, both GPU tests clean; same: 0 elements differ at every S and M (control differs);
#     timing: ks at S within 10 % of the twin's split-K S + reduce at M ≤ 256 (across), and at
#     M = 1024 (a block per SM, the parts in turn) within 10 % of the twin at split-K 1 (the extra is one fp32 tile
#     through L2 a part).
#     And ks-reg.patch (kbench-reg: the along walk's running sum in registers for tiles of ≤ 128 columns, not in
#     L2): check, same at M = 1024 (along), and a timing beside the L2 build at M = 512, 1024, 2048. Prediction:
#     correct, same bits; along (M = 1024, 2048) 3–8 % faster at S = 2…4 on 128x128 and 128x64; across (M = 512 at
#     4096 × 4096) unchanged (±2 %).
# (2) call D (docs/perf/2026-12-07-h200-h/callD.sh): ws_wgmma_sk_tp_sh_ts 256x128 / 256x160 checked, memchecked,
#     timed at o, qkv, gate_up, M = 512…2048; sh_ts 128x64 against ts 128x64 at o M = 129, 182, 256; the
#     ws_stream_k_shift hazard (same, M = 700…1000). Predictions in callD.sh.
# Order: ks correctness, then call D, then the timings (a call cut short keeps $OUT/summary.txt). ≈ 300 s.
# usage: bash callE.sh   (carry .gpu-bin: b.txz from prepare.sh at this commit)
set -uo pipefail
s=$(date +%s); S=$OUT/summary.txt
t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s" | tee -a $S; }
say() { tee -a $S; }
python3 -c "import tarfile; tarfile.open('.gpu-bin/b.txz').extractall()"
export GEMMROUTE_KERNEL_DIR=$PWD/kernels
mkdir -p /tmp/c
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | say
timeout 60 .gpu/kbench check "" "ks_ts" > /tmp/c/checkks.log 2>&1; t checkks $?; tail -1 /tmp/c/checkks.log | say
grep -E '^FAIL|mismatch|differs' /tmp/c/checkks.log | head -10 | say
timeout 40 .gpu/kbench same 1,7,300,1024 "ks_ts" 4096x4096 > /tmp/c/same-ks.log 2>&1; t same-ks $?; tail -1 /tmp/c/same-ks.log | say
timeout 30 .gpu/kbench same 1,300 "ks_ts" 776x5128 > /tmp/c/same-ks-odd.log 2>&1; t same-ks-odd $?; tail -1 /tmp/c/same-ks-odd.log | say
grep -h 'SAME FAIL' /tmp/c/same-ks*.log | head -8 | say
timeout 40 compute-sanitizer --tool memcheck .gpu/kbench memcheck "" "ks_ts_bf16" > /tmp/c/memks.log 2>&1; t memcheckks $?; tail -1 /tmp/c/memks.log | say
(cd dispatch && timeout 180 ../.gpu/dispatch.test -test.count=1 -test.v -test.timeout 170s -test.run '^(TestReductionClassesAgree|TestSplitFixedTwoStreams|TestBatchInvariantRowsAtSplit|TestStreamKDeterministicAndReplayable)$' > /tmp/c/gpu-test.log 2>&1); t gpu-test $?
grep -E '^(--- |ok|FAIL|PASS)|kernels ran|pairs' /tmp/c/gpu-test.log | grep -v -- '--- PASS' | head -40 | say; grep -E '^\s+(Error|Messages)' /tmp/c/gpu-test.log | head -6 | say
timeout 40 .gpu/kbench-reg check "" "ks_ts" > /tmp/c/checkreg.log 2>&1; t checkreg $?; tail -1 /tmp/c/checkreg.log | say
timeout 30 .gpu/kbench-reg same 1024 "ks_ts" 4096x4096 > /tmp/c/same-reg.log 2>&1; t same-reg $?; tail -1 /tmp/c/same-reg.log | say
# (2) call D's steps
timeout 40 .gpu/kbench check "" "sk_tp_sh_ts_bf16_bf16_f32_tn_256,sk_tp_sh_ts_f16_f16_f32_tn_256" > /tmp/c/check256.log 2>&1; t check256 $?; tail -1 /tmp/c/check256.log | say
grep -E '^FAIL|mismatch|differs' /tmp/c/check256.log | head -10 | say
timeout 30 compute-sanitizer --tool memcheck .gpu/kbench memcheck "" "sk_tp_sh_ts_bf16_bf16_f32_tn_256" > /tmp/c/mem256.log 2>&1; t memcheck256 $?; tail -1 /tmp/c/mem256.log | say
timeout 20 .gpu/kbench check "" "sh_ts_bf16_bf16_f32_tn_128x64" > /tmp/c/check64.log 2>&1; t check64 $?; tail -1 /tmp/c/check64.log | say
timeout 30 .gpu/kbench same 700,800,900,1000 "sk_sh_ts_bf16_bf16_f32_tn_128x192" 4096x4096 > /tmp/c/same-sh.log 2>&1; t same-sh $?; tail -1 /tmp/c/same-sh.log | say
# timings
timeout 90 .gpu/kbench timeall 129,192,256,512,1024,2048 "ks_ts_bf16,ws_wgmma_ts_bf16_bf16_f32_tn_128x128,ws_wgmma_ts_bf16_bf16_f32_tn_128x64,ws_wgmma_ts_bf16_bf16_f32_tn_128x256" 4096x4096,14336x4096 > $OUT/timeks.log 2>&1; t timeks $?
timeout 40 .gpu/kbench-reg timeall 512,1024,2048 "ks_ts_bf16" 4096x4096,14336x4096 > $OUT/timereg.log 2>&1; t timereg $?
timeout 120 .gpu/kbench timeall 512,768,1024,1200,2048 "sk_tp_sh_ts_bf16" 4096x4096,6144x4096,28672x4096 > $OUT/time256.log 2>&1; t timeall256 $?
timeout 30 .gpu/kbench timeall 129,182,256 "ts_bf16_bf16_f32_tn_128x64" 4096x4096 > $OUT/time64.log 2>&1; t timeall64 $?
tar czf $OUT/c.tgz -C /tmp/c .
