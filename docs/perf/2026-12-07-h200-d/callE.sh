# Twenty-second session, call E (any Hopper card): ws_wgmma_sk_ev_sh_ts, stream-K whose partial last wave is split
# evenly over the grid (ws_stream_k_even, ws_streamk.cuh), never run before. First correct: the engine's stream-K test
# (float64 check, same bits over direct runs and graph replays, every stream-K kernel), the awkward table for bf16 and
# f16 (every kernel), the workspace refusal, kbench check and memcheck of the new tiles; then timed beside their
# ws_stream_k twins (sk_sh_ts) and cuBLAS by graph replay at the held-out weights the default entry loses most on.
# Prediction (before any run): where ws_stream_k leaves SMs idle in the tail the even split is faster by about the
# ratio of the longest tail ranges — mistral-nemo o (5120 × 4096) M = 384 on 128x192: 81 tiles, 64 → 40 k-tiles a
# block, 34.5 → 24–28 µs (cuBLAS 25.4 on the engine bench); phi3-mini down (3072 × 8192) M = 384: 64 → 47, 40.8 →
# 31–34 µs; mistral-nemo o M = 1449 on 128x128: 3 waves + 64 → 3 waves + 41 k-tiles, 5–10 % faster — and where the
# ranges are the same length (qkv 6144 × 4096 M = 725, the 4096 × 1024 floor M = 1024) within 3 % either way.
# usage: bash callE.sh   (carry .gpu-bin: r.txz holds .gpu/ with dispatch.test, autotune, kbench (the stream-K tiles
# only), peer_cublas.py and the shape lists, all built from this commit)
set -uo pipefail
s=$(date +%s); t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s"; }
python3 -c "import tarfile; tarfile.open('.gpu-bin/r.txz').extractall()"
export GEMMROUTE_KERNEL_DIR=$PWD/kernels CUBLAS_LIB=$(find / -xdev -name 'libcublas.so.1[0-9]*' 2>/dev/null | grep -v Lt | head -1)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/card.txt
(cd dispatch && timeout 200 ../.gpu/dispatch.test -test.v -test.count=1 \
  -test.run '^(TestStreamKDeterministicAndReplayable|TestEveryKernelOnAwkwardShapes/(bf16|f16)|TestWorkspaceTooSmallIsRefused|TestGraphCaptureMatchesDirect)$' \
  > /tmp/gpu-test.log 2>&1); t gpu-tests $?
grep -E '^(--- |ok|FAIL|PASS)|Error' /tmp/gpu-test.log | head -40 > $OUT/gpu-test.txt; tail -3 /tmp/gpu-test.log
timeout 60 .gpu/kbench check "" "sk_ev_sh_ts,sk_sh_ts" > /tmp/check.log 2>&1; t check $?; tail -1 /tmp/check.log
timeout 60 compute-sanitizer --tool memcheck .gpu/kbench memcheck "" "sk_ev_sh_ts_bf16_bf16_f32_tn_128x192,sk_ev_sh_ts_bf16_bf16_f32_tn_128x128" > /tmp/mem.log 2>&1
t memcheck $?; tail -2 /tmp/mem.log
timeout 150 .gpu/kbench timeall 384,725,1024,1449 "sk_ev_sh_ts_bf16,sk_sh_ts_bf16" 5120x4096,3072x8192,6144x4096,15360x5120,4096x1024 \
  > $OUT/time.log 2>&1; t timeall $?
tar czf $OUT/e.tgz -C /tmp gpu-test.log check.log mem.log
echo "total $(( $(date +%s) - s )) s"
