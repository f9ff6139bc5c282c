# call 3: the engine's GPU tests that reach the new mid-M kernels (every kernel on the awkward table against the
# float64 reference, stream-K bits over runs and graph replays) and the cuBLASLt route (issue 22: engine launch path,
# allocation and memory tests, since Open now loads cuBLASLt); then a bf16 tune of the seven corpus weights
# (Llama-3-8B's four, qwen2.5-7b.qkv, gemma2-9b.o, falcon-7b.down) up to M = 512 with the new kernels admitted,
# whose buckets 17…512 are to be spliced into the committed table (splice.py).
set -uo pipefail
tar xzf .gpu-bin/bins.tgz; export GEMMROUTE_KERNEL_DIR=$PWD/kernels; s=$(date +%s)
(cd dispatch && timeout 150 ../.gpu/dispatch.test -test.v -test.timeout 145s -test.run 'TestEveryKernelOnAwkwardShapes|TestStreamKDeterministicAndReplayable|TestVendorRouteMatchesReference|TestGEMMAllocatesNothing|TestCloseReturnsMemory|TestGraphCaptureMatchesDirect') > $OUT/gputest.log 2>&1
echo "tests rc=$? $(( $(date +%s) - s )) s"; grep -E '^(--- |ok|FAIL|PASS)|kernels \(|bit-identical' $OUT/gputest.log | head -30
drv=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
timeout 400 .gpu/autotune tune -shapes .gpu/corpus7.csv -max-m 512 -reps 10 -event-calls 10 -out $OUT/buckets-tuned.yaml \
  -report $OUT/rep -driver "$drv" > $OUT/tune.log 2>&1; echo "tune rc=$? $(( $(date +%s) - s )) s"; tail -3 $OUT/tune.log
(cd $OUT && cp rep/tune.md . ; rm -rf rep); echo "total $(( $(date +%s) - s )) s"
