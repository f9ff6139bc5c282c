# call 1: the stream-K kernels (ws_wgmma_sk, ws_wgmma_swap_sk; experimental) on the GPU for the first time:
# kbench check (float64-sampled reference, bits across runs) and compute-sanitizer memcheck; kbench timings of every
# bf16 ws candidate (data-parallel, split-K, persistent, ping-pong, multicast, stream-K) beside cublasGemmEx at
# M = 128…2048 on eight weights; the engine's GPU tests of stream-K (bits over direct runs and graph replays) and
# every bf16/f16 kernel on the awkward table.
set -uo pipefail
s=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt; cat $OUT/gpu.txt
export CUBLAS_LIB=$(find / -xdev -name 'libcublas.so.1[0-9]*' 2>/dev/null | grep -v Lt | head -1)
KB=./.gpu-bin/kbench
timeout 100 $KB check "" _sk_ > $OUT/check.log 2>&1; echo "check rc=$? $(( $(date +%s) - s )) s"; grep -c PASS $OUT/check.log; grep -E "FAIL|differs|CHECK" $OUT/check.log | head
timeout 100 compute-sanitizer --tool memcheck $KB memcheck "" _sk_ > $OUT/memcheck.log 2>&1; echo "memcheck rc=$? $(( $(date +%s) - s )) s"; tail -2 $OUT/memcheck.log
timeout 200 $KB timeall 128,256,512,1024,2048 bf16_bf16 6144x4096,4096x4096,28672x4096,4096x14336,5120x4096,5120x13824,4096x1024,3072x8192 > $OUT/time.log 2>&1; echo "time rc=$? $(( $(date +%s) - s )) s"
grep -v "^   " $OUT/time.log | tail -42
export GEMMROUTE_KERNEL_DIR=$PWD/kernels
(cd dispatch && timeout 150 ../.gpu/dispatch.test -test.run '^(TestStreamKDeterministicAndReplayable|TestEveryKernelOnAwkwardShapes/(bf16|f16)|TestSplitKDeterministic/bf16|TestGraphCaptureMatchesDirect)$' -test.v -test.timeout 140s) > $OUT/gputest.log 2>&1; echo "tests rc=$? $(( $(date +%s) - s )) s"
grep -E '^(--- |ok|FAIL|PASS)|bit-identical|kernels \(' $OUT/gputest.log | head -20
echo "total $(( $(date +%s) - s )) s"
