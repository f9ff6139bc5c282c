# call 5: the two candidate tables of merge.py (A: call 4's tune as written; B: A with the committed default entry's
# buckets ≤ 256) beside cuBLAS (torch.mm, same graph-replay method, same call) on Llama-3-8B, held-out weights, odd
# shapes and the floor probes; then the whole GPU suite on the final fatbins.
set -uo pipefail
export GEMMROUTE_KERNEL_DIR=$PWD/kernels; s=$(date +%s)
PYTHONUNBUFFERED=1 timeout 110 python3 .gpu/peer_cublas.py .gpu-bin/bench.csv $OUT/peer.csv > $OUT/peer.log 2>&1; echo "peer rc=$? $(( $(date +%s) - s )) s"; head -1 $OUT/peer.log
for t in A B; do
  timeout 120 .gpu-bin/autotune bench -shapes .gpu-bin/bench.csv -peer $OUT/peer.csv -csv $OUT/bench-$t.csv -table .gpu-bin/buckets-$t.yaml > $OUT/bench-$t.log 2>&1; echo "bench $t rc=$? $(( $(date +%s) - s )) s"
done
(cd dispatch && timeout 190 ../.gpu/dispatch.test -test.v -test.timeout 185s) > $OUT/gputest.log 2>&1; echo "tests rc=$? $(( $(date +%s) - s )) s"
grep -E '^--- FAIL|^(ok|FAIL|PASS)$' $OUT/gputest.log | head -20; grep -c '^--- PASS' $OUT/gputest.log; grep "kernels (" $OUT/gputest.log | head -2
echo "total $(( $(date +%s) - s )) s"
