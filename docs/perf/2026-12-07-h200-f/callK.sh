# Twenty-fourth session, call K (any Hopper card): ws_wgmma_sk_tp_sh_ts, stream-K whose tail split is the plan's
# (ws_stream_k_planned, ws_streamk.cuh; dispatch's tailParts), never run before. First correct: kbench check (float64,
# the awkward shapes, tail splits 1, 2, 3, 8, three reruns' bits) and memcheck of the new tiles, the engine's stream-K
# test (float64, same bits over direct runs and graph replays, every stream-K kernel, the new "shifted tail" case);
# then timed at every tail split beside their ws_stream_k twins (sk_sh_ts) and cuBLAS by graph replay.
# Prediction (before any run; model: dispatch's tailParts, a tail part-wave as long as its part, a partial tile's
# round trip 2.4 k-tiles of 128x192): where ws_stream_k splits a small tail into many parts the planned split is
# much faster — mistral-nemo o (5120 × 4096) M = 600, 128x192: 84.7 µs (the committed table's bench) → 45–55 µs at
# S = 4…6; M = 1200, 128x128: 110.9 → 85–95 µs at S = 5; where ws_stream_k leaves a tail of more than G/2 tiles
# whole, S = 3 or 4 gains 10–25 % (mistral-nemo o M = 300 on 128x192: 34 → 26–30 µs; phi3-mini down 3072 × 8192
# M = 600 on 128x192: 61 → 45–52 µs); where both take the same split, within 3 % (o 4096 × 4096 M = 850, 128x192).
# The best S by measurement agrees with the model's within one step at ≥ 12 of the 16 shapes.
# usage: bash callK.sh   (carry .gpu-bin: r.txz holds .gpu/ with dispatch.test, autotune, kbench, peer_cublas.py and
# the shape lists, all built from this commit)
set -uo pipefail
s=$(date +%s); t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s"; }
python3 -c "import tarfile; tarfile.open('.gpu-bin/r.txz').extractall()"
export GEMMROUTE_KERNEL_DIR=$PWD/kernels CUBLAS_LIB=$(find / -xdev -name 'libcublas.so.1[0-9]*' 2>/dev/null | grep -v Lt | head -1)
mkdir -p /tmp/k
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/card.txt
timeout 90 .gpu/kbench check "" "sk_tp_sh_ts" > /tmp/k/check.log 2>&1; t check $?; tail -1 /tmp/k/check.log
grep -E '^FAIL|mismatch|differs' /tmp/k/check.log | head -20
timeout 60 compute-sanitizer --tool memcheck .gpu/kbench memcheck "" "sk_tp_sh_ts_bf16_bf16_f32_tn_128x192,sk_tp_sh_ts_bf16_bf16_f32_tn_128x96" > /tmp/k/mem.log 2>&1
t memcheck $?; tail -2 /tmp/k/mem.log
timeout 170 .gpu/kbench timeall 300,600,850,1200 "sk_tp_sh_ts_bf16,sk_sh_ts_bf16" 5120x4096,4096x4096,3072x8192,6144x4096 \
  > $OUT/time.log 2>&1; t timeall $?
(cd dispatch && timeout $(( 560 - ($(date +%s) - s) )) ../.gpu/dispatch.test -test.v -test.count=1 \
  -test.run '^(TestStreamKDeterministicAndReplayable|TestWorkspaceTooSmallIsRefused)$' > /tmp/k/gpu-test.log 2>&1); t gpu-tests $?
grep -E '^(--- |ok|FAIL|PASS)|Error' /tmp/k/gpu-test.log | head -40 > $OUT/gpu-test.txt; tail -3 /tmp/k/gpu-test.log
tar czf $OUT/k.tgz -C /tmp/k .
echo "total $(( $(date +%s) - s )) s"
