# call 4: call 3's table (T: M = 129…1024 retuned with the TMA-store mid-M and stream-K tiles) and the committed one
# (C) benched beside cuBLAS (torch.mm) in the same call on the README's 91 shapes; then the whole GPU suite on the
# fatbins with the 14 new kernels (the awkward table runs every kernel, experimental ones included).
set -uo pipefail
tar xzf .gpu-bin/bins.tgz; export GEMMROUTE_KERNEL_DIR=$PWD/kernels; s=$(date +%s)
S=docs/perf/2026-12-01-h200-mc/bench-shapes.csv; cp docs/perf/2026-12-04-h200/c3/buckets-L.yaml.xz $OUT/buckets-T.yaml
PYTHONUNBUFFERED=1 timeout 110 python3 scripts/peer_cublas.py $S $OUT/peer.csv > $OUT/peer.log 2>&1; echo "peer rc=$? $(( $(date +%s) - s )) s"; head -1 $OUT/peer.log
timeout 100 .gpu/autotune bench -shapes $S -peer $OUT/peer.csv -csv $OUT/bench-T.csv -table $OUT/buckets-T.yaml > $OUT/bench.log 2>&1; echo "bench T rc=$? $(( $(date +%s) - s )) s"
timeout 100 .gpu/autotune bench -shapes $S -peer $OUT/peer.csv -csv $OUT/bench-C.csv -table buckets.yaml >> $OUT/bench.log 2>&1; echo "bench C rc=$? $(( $(date +%s) - s )) s"
grep -E "geomean|lowest|summary" $OUT/bench.log | head
(cd dispatch && timeout 200 ../.gpu/dispatch.test -test.timeout 190s -test.v) > $OUT/gputest.log 2>&1; echo "gputest rc=$? $(( $(date +%s) - s )) s"
grep -E '^(--- FAIL|ok|FAIL|PASS)' $OUT/gputest.log | head; grep -c '^--- PASS' $OUT/gputest.log; grep -c -- '--- SKIP' $OUT/gputest.log
rm -f $OUT/buckets-T.yaml; echo "total $(( $(date +%s) - s )) s"
