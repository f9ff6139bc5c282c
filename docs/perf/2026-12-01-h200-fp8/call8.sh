# call 8: main as committed (e4m3 table embedded): e4m3 bench beside _scaled_mm (Llama-3-8B, three scalings; held-out weights, per-tensor), the README quick start and examples/linear
export GEMMROUTE_KERNEL_DIR=$PWD/kernels
cat .gpu3/shapes-llama3-8b-e4m3.csv > /tmp/b8.csv; tail -n +2 .gpu3/shapes-heldout-e4m3.csv >> /tmp/b8.csv
s=$(date +%s)
PYTHONUNBUFFERED=1 timeout 200 python3 .gpu3/peer_cublas.py /tmp/b8.csv $OUT/peer.csv > $OUT/peer.log 2>&1; echo "peer rc=$? $(( $(date +%s) - s )) s"; head -1 $OUT/peer.log
pk8=$(sed -n '1s/.* e4m3 dense \([0-9][0-9]*\) TFLOP\/s.*/\1e12/p' $OUT/peer.log)
s=$(date +%s)
timeout 200 .gpu3/autotune bench -shapes /tmp/b8.csv -peer $OUT/peer.csv -csv $OUT/bench.csv ${pk8:+-peak-fp8 $pk8} > $OUT/bench.log 2>&1; echo "bench rc=$? $(( $(date +%s) - s )) s"; tail -45 $OUT/bench.log
timeout 60 .gpu3/quickstart > $OUT/quickstart.log 2>&1; echo "quickstart rc=$?"; tail -2 $OUT/quickstart.log
timeout 60 .gpu3/linear > $OUT/linear.log 2>&1; echo "linear rc=$?"; tail -2 $OUT/linear.log
