# Twenty-fourth session, call B (any Hopper card; what device time was left): ws_wgmma_sk_tp_sh_ts 256x128 and 256x160
# (stream-K of planned parts over two 64-row blocks a consumer: ws_stream_k_planned::fixup_blocks), never run before —
# kbench check (float64, awkward shapes, tail splits 1, 2, 3, 8, reruns' bits) and memcheck, the engine's stream-K test
# (every stream-K kernel, planned splits), then a short timing beside the 128-row tp tiles and cuBLAS.
# Prediction (before the run): correct everywhere; at o (4096 × 4096) M = 1200 and gate_up (28672 × 4096) M = 1024 the
# 256x128 tile at its best split within 5 % of the best 128-row tp tile (cuBLAS's 256x128 reads half the L2 bytes of a
# 128x128 per flop; our 256x128 DP tile ran at 0.9–1.0 of our 128x256 before). Then sh_ts 128x64 (never run) checked and
# timed beside ts 128x64 at o M = 129, 182, 256 — prediction: M = 182 30.6 → ≤ 20 µs (the shift removes the 74 rows
# past M; M = 256's 18.6 is the same tiles).
# Then (twenty-fifth session) the ws_stream_k_shift hazard: kbench same of sk_sh_ts 128x192 against sk_ts 128x192
# (the unshifted twin) at N = K = 4096, M = 700, 800, 900, 1000. Prediction: M = 800 differs in rows 672…767
# (the shifted last tile and the one before meet across the whole/tail boundary); if it does not, the hazard
# is not reached at these shapes and stays a note.
# usage: bash callB.sh   (carry .gpu-bin: r.txz with kbench built from this commit)
set -uo pipefail
s=$(date +%s); t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s"; }
python3 -c "import tarfile; tarfile.open('.gpu-bin/r.txz').extractall()"
export GEMMROUTE_KERNEL_DIR=$PWD/kernels CUBLAS_LIB=$(find / -xdev -name 'libcublas.so.1[0-9]*' 2>/dev/null | grep -v Lt | head -1)
mkdir -p /tmp/b
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/card.txt
timeout 40 .gpu/kbench check "" "sk_tp_sh_ts_bf16_bf16_f32_tn_256,sk_tp_sh_ts_f16_f16_f32_tn_256" > /tmp/b/check.log 2>&1; t check $?; tail -1 /tmp/b/check.log
grep -E '^FAIL|mismatch|differs' /tmp/b/check.log | head -10
timeout 30 compute-sanitizer --tool memcheck .gpu/kbench memcheck "" "sk_tp_sh_ts_bf16_bf16_f32_tn_256" > /tmp/b/mem.log 2>&1; t memcheck $?; tail -1 /tmp/b/mem.log
timeout 40 .gpu/kbench timeall 1024,1200 "sk_tp_sh_ts_bf16" 4096x4096,28672x4096 > $OUT/time.log 2>&1; t timeall $?
timeout 20 .gpu/kbench check "" "sh_ts_bf16_bf16_f32_tn_128x64" > /tmp/b/check64.log 2>&1; t check-128x64 $?; tail -1 /tmp/b/check64.log
timeout 30 .gpu/kbench timeall 129,182,256 "ts_bf16_bf16_f32_tn_128x64" 4096x4096 > $OUT/time64.log 2>&1; t timeall-128x64 $?
timeout 30 .gpu/kbench same 700,800,900,1000 "sk_sh_ts_bf16_bf16_f32_tn_128x192" 4096x4096 > $OUT/same.log 2>&1; t same $?; tail -1 $OUT/same.log
(cd dispatch && timeout 80 ../.gpu/dispatch.test -test.count=1 -test.run '^TestStreamKDeterministicAndReplayable$' > /tmp/b/gpu-test.log 2>&1); t gpu-test $?
tail -3 /tmp/b/gpu-test.log; grep -E '^\s+(Error|Messages)' /tmp/b/gpu-test.log | head -6
tar czf $OUT/b.tgz -C /tmp/b .
