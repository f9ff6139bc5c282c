# Twenty-fifth session, call C (any Hopper card): two sets of never-run kernels in one call.
# (1) The twenty-fourth session's call B, unchanged: ws_wgmma_sk_tp_sh_ts 256x128 / 256x160 (stream-K of planned parts
#     over two 64-row blocks a consumer) — kbench check (float64, awkward shapes, tail splits 1, 2, 3, 8, reruns' bits),
#     memcheck, a short timing at o (4096 × 4096) and gate_up (28672 × 4096), M = 1024, 1200; sh_ts 128x64 checked
#     and timed beside ts 128x64 at o M = 129, 182, 256; the ws_stream_k_shift hazard (kbench same, sk_sh_ts 128x192
#     against sk_ts, N = K = 4096, M = 700…1000).
#     Predictions (before the run): correct everywhere; 256x128 at its best split within 5 % of the best 128-row tp
#     tile at o M = 1200 and gate_up M = 1024; sh_ts 128x64 at o M = 182 30.6 → ≤ 20 µs; the hazard shows at
#     M = 800 (rows 672…767 differ) — if not, it is not reached at these shapes.
# (2) ws_wgmma_ks_ts (ws_splitfixed.cuh: every tile split in the plan's S parts, summed in the kernel in the reduce's
#     order, slots reused per wave) — kbench check (S = 1, 2, 3, 8, reruns' bits), memcheck, kbench same against the
#     ts twins' workspace split-K + reduce at S = 1, 2, 3, 4, 8 (M = 1, 7, 300, 1024; 4096 × 4096 and 776 × 5128),
#     the engine's TestReductionClassesAgree (split-K 1, 2, 4 in every class) and stream-K test, then a timing of
#     ks_ts against the ts twins (split-K through the workspace) and cuBLAS at M = 16, 64, 256, 1024.
#     Predictions: check and memcheck clean; same: 0 elements differ at every S and M (control differs);
#     timing: ks at S within 10 % of the twin's split-K S where both fit (M ≤ 256), and at M = 1024 where the
#     twin's split-K S needs more than 64 MiB of workspace, ks runs (the twin at S would not fit an engine).
# Order: ks_ts correctness first, then the 256-row sk_tp, then the timings (a call cut short keeps $OUT/summary.txt).
# usage: bash callC.sh   (carry .gpu-bin: b.txz with dispatch.test and a filtered kbench built from this commit)
set -uo pipefail
s=$(date +%s); S=$OUT/summary.txt
t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s" | tee -a $S; }
say() { tee -a $S; }  # every step's verdict lands in $OUT as it comes (a call cut short keeps them)
python3 -c "import tarfile; tarfile.open('.gpu-bin/b.txz').extractall()"
export GEMMROUTE_KERNEL_DIR=$PWD/kernels
mkdir -p /tmp/c
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | say
# (2) first: the never-run ks_ts, correctness before speed
timeout 60 .gpu/kbench check "" "ks_ts" > /tmp/c/checkks.log 2>&1; t checkks $?; tail -1 /tmp/c/checkks.log | say
grep -E '^FAIL|mismatch|differs' /tmp/c/checkks.log | head -10 | say
timeout 40 .gpu/kbench same 1,7,300,1024 "ks_ts_bf16" 4096x4096 > /tmp/c/same-ks.log 2>&1; t same-ks $?; tail -1 /tmp/c/same-ks.log | say
timeout 30 .gpu/kbench same 1,300 "ks_ts" 776x5128 > /tmp/c/same-ks-odd.log 2>&1; t same-ks-odd $?; tail -1 /tmp/c/same-ks-odd.log | say
grep -h 'SAME FAIL' /tmp/c/same-ks*.log | head -8 | say
(cd dispatch && timeout 120 ../.gpu/dispatch.test -test.count=1 -test.v -test.run '^(TestReductionClassesAgree|TestStreamKDeterministicAndReplayable)$' > /tmp/c/gpu-test.log 2>&1); t gpu-test $?
grep -E '^(--- |ok|FAIL|PASS)|kernels ran' /tmp/c/gpu-test.log | grep -v -- '--- PASS' | head -40 | say; grep -E '^\s+(Error|Messages)' /tmp/c/gpu-test.log | head -6 | say
# (1)
timeout 40 .gpu/kbench check "" "sk_tp_sh_ts_bf16_bf16_f32_tn_256,sk_tp_sh_ts_f16_f16_f32_tn_256" > /tmp/c/check256.log 2>&1; t check256 $?; tail -1 /tmp/c/check256.log | say
grep -E '^FAIL|mismatch|differs' /tmp/c/check256.log | head -10 | say
timeout 30 compute-sanitizer --tool memcheck .gpu/kbench memcheck "" "sk_tp_sh_ts_bf16_bf16_f32_tn_256" > /tmp/c/mem256.log 2>&1; t memcheck256 $?; tail -1 /tmp/c/mem256.log | say
timeout 40 compute-sanitizer --tool memcheck .gpu/kbench memcheck "" "ks_ts_bf16" > /tmp/c/memks.log 2>&1; t memcheckks $?; tail -1 /tmp/c/memks.log | say
timeout 60 .gpu/kbench timeall 16,64,256,1024 "ks_ts_bf16,ws_wgmma_ts_bf16_bf16_f32_tn_128x128,ws_wgmma_ts_bf16_bf16_f32_tn_128x64,ws_wgmma_ts_bf16_bf16_f32_tn_128x256" 4096x4096,14336x4096 > $OUT/timeks.log 2>&1; t timeks $?
timeout 40 .gpu/kbench timeall 1024,1200 "sk_tp_sh_ts_bf16" 4096x4096,28672x4096 > $OUT/time256.log 2>&1; t timeall256 $?
timeout 20 .gpu/kbench check "" "sh_ts_bf16_bf16_f32_tn_128x64" > /tmp/c/check64.log 2>&1; t check64 $?; tail -1 /tmp/c/check64.log | say
timeout 30 .gpu/kbench timeall 129,182,256 "ts_bf16_bf16_f32_tn_128x64" 4096x4096 > $OUT/time64.log 2>&1; t timeall64 $?
timeout 30 .gpu/kbench same 700,800,900,1000 "sk_sh_ts_bf16_bf16_f32_tn_128x192" 4096x4096 > /tmp/c/same-sh.log 2>&1; t same-sh $?; tail -1 /tmp/c/same-sh.log | say
tar czf $OUT/c.tgz -C /tmp/c .
