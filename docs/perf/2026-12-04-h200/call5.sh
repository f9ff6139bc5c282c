# call 5: call 3's table (T) and the committed one (C) beside cuBLAS (torch.mm) at M between powers of two
# (scripts/shapes-between.csv: Llama-3-8B and four held-out weights, M = 24 … 2897), where a bucket's one kernel
# serves neither edge; this decides between T and C more fairly than the bucket edges of call 4.
set -uo pipefail
tar xzf .gpu-bin/bins.tgz; export GEMMROUTE_KERNEL_DIR=$PWD/kernels; s=$(date +%s)
S=scripts/shapes-between.csv; cp docs/perf/2026-12-04-h200/c3/buckets-L.yaml.xz $OUT/buckets-T.yaml
PYTHONUNBUFFERED=1 timeout 100 python3 scripts/peer_cublas.py $S $OUT/peer-between.csv > $OUT/peer-between.log 2>&1; echo "peer rc=$? $(( $(date +%s) - s )) s"
timeout 150 .gpu/autotune bench -shapes $S -peer $OUT/peer-between.csv -csv $OUT/between-T.csv -table $OUT/buckets-T.yaml > $OUT/between.log 2>&1; echo "bench T rc=$? $(( $(date +%s) - s )) s"
timeout 150 .gpu/autotune bench -shapes $S -peer $OUT/peer-between.csv -csv $OUT/between-C.csv -table buckets.yaml >> $OUT/between.log 2>&1; echo "bench C rc=$? $(( $(date +%s) - s )) s"
grep -E "geomean|lowest|summary" $OUT/between.log | head; rm -f $OUT/buckets-T.yaml; echo "total $(( $(date +%s) - s )) s"
