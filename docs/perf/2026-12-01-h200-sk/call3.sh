# call 3: stream-K as data-parallel waves + a split tail (ws_streamk.cuh rewritten after call 2): kbench check and
# memcheck; kbench timings of every bf16 ws candidate beside cublasGemmEx at M = 128…1024 on eight weights (as call 1);
# the engine's GPU tests of stream-K, every bf16/f16 kernel on the awkward table, split-K bits, graph replay.
set -uo pipefail
s=$(date +%s)
export CUBLAS_LIB=$(find / -xdev -name 'libcublas.so.1[0-9]*' 2>/dev/null | grep -v Lt | head -1)
KB=./.gpu-bin/kbench
timeout 60 $KB check "" _sk_ > $OUT/check.log 2>&1; echo "check rc=$? $(( $(date +%s) - s )) s"; grep -c PASS $OUT/check.log; grep -E "FAIL|differs|CHECK" $OUT/check.log | head -5
timeout 60 compute-sanitizer --tool memcheck $KB memcheck "" _sk_ > $OUT/memcheck.log 2>&1; echo "memcheck rc=$? $(( $(date +%s) - s )) s"; tail -1 $OUT/memcheck.log
timeout 170 $KB timeall 128,256,512,1024 bf16_bf16 6144x4096,4096x4096,28672x4096,4096x14336,5120x4096,5120x13824,4096x1024,3072x8192 > $OUT/time.log 2>&1; echo "time rc=$? $(( $(date +%s) - s )) s"
grep -v "^   " $OUT/time.log | tail -33
export GEMMROUTE_KERNEL_DIR=$PWD/kernels
(cd dispatch && timeout 200 ../.gpu/dispatch.test -test.run 'TestStreamKDeterministicAndReplayable|TestEveryKernelOnAwkwardShapes|TestSplitKDeterministic|TestGraphCaptureMatchesDirect/^(bf16|f16)$' -test.v -test.timeout 190s) > $OUT/gputest.log 2>&1; echo "tests rc=$? $(( $(date +%s) - s )) s"
grep -E '^(--- |ok|FAIL|PASS)|bit-identical|kernels \(' $OUT/gputest.log | head -20
echo "total $(( $(date +%s) - s )) s"
