# call 5: the new table beside cuBLAS (torch.mm, same graph-replay method, same call): Llama-3-8B, held-out weights, odd shapes, the floor probes; the quick start on it
set -uo pipefail
export GEMMROUTE_KERNEL_DIR=$PWD/kernels; s=$(date +%s)
cat .gpu-bin/shapes-llama3-8b.csv > /tmp/b.csv; for f in shapes-heldout-bench shapes-odd shapes-floors; do tail -n +2 .gpu-bin/$f.csv >> /tmp/b.csv; done
PYTHONUNBUFFERED=1 timeout 240 python3 .gpu-bin/peer_cublas.py /tmp/b.csv $OUT/peer.csv > $OUT/peer.log 2>&1; echo "peer rc=$? $(( $(date +%s) - s )) s"; head -1 $OUT/peer.log
timeout 240 .gpu-bin/autotune bench -shapes /tmp/b.csv -peer $OUT/peer.csv -csv $OUT/bench.csv -table .gpu-bin/buckets.yaml > $OUT/bench.log 2>&1; echo "bench rc=$? $(( $(date +%s) - s )) s"; tail -40 $OUT/bench.log
echo "total $(( $(date +%s) - s )) s"
