# call 5: the committed table (call 4's qkv and o buckets 17…128 spliced in) benched beside cuBLAS on the 91 shapes of
# the README's figures (Llama-3-8B, eight held-out weights, the odd shape, the floor probes), then the engine's GPU
# tests that calls 3 did not run (streams, threads, captures, split-K bits, routing, > 2^31 elements, bad input,
# reduction classes) on main with the cuBLASLt loader in Open.
set -uo pipefail
tar xzf .gpu-bin/bins.tgz; export GEMMROUTE_KERNEL_DIR=$PWD/kernels; s=$(date +%s); S=docs/perf/2026-12-01-h200-mc/bench-shapes.csv
PYTHONUNBUFFERED=1 timeout 110 python3 .gpu/peer_cublas.py $S $OUT/peer.csv > $OUT/peer.log 2>&1; echo "peer rc=$? $(( $(date +%s) - s )) s"; head -1 $OUT/peer.log
timeout 90 .gpu/autotune bench -shapes $S -peer $OUT/peer.csv -csv $OUT/bench.csv -table buckets.yaml > $OUT/bench.log 2>&1; echo "bench rc=$? $(( $(date +%s) - s )) s"
(cd dispatch && timeout 120 ../.gpu/dispatch.test -test.v -test.timeout 115s -test.skip 'TestBatchInvariantRows|TestEveryKernelOnAwkwardShapes|TestStreamKDeterministicAndReplayable') > $OUT/gputest.log 2>&1
echo "tests rc=$? $(( $(date +%s) - s )) s"; grep -E '^(--- |ok|FAIL|PASS)' $OUT/gputest.log | head -30
