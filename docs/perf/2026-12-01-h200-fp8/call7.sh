# call 7: GPU tests (tolerance 2^-9), then tune e4m3 over Llama-3-8B beside _scaled_mm at the tuned points
export GEMMROUTE_KERNEL_DIR=$PWD/kernels
s=$(date +%s)
(cd dispatch && timeout 200 ../.gpu3/dispatch.test -test.v -test.timeout 190s) > $OUT/gputest.log 2>&1; echo "gputest rc=$? $(( $(date +%s) - s )) s"
grep -E '^(--- FAIL|FAIL|ok|PASS)' $OUT/gputest.log | head; grep -E -A3 -e '--- FAIL' $OUT/gputest.log | grep "gpu_test.go" | cut -c1-400 | head -10
s=$(date +%s)
.gpu3/autotune points -model llama3-8b -dtypes e4m3 -max-m 8192 -out /tmp/points8.csv && PYTHONUNBUFFERED=1 timeout 150 python3 .gpu3/peer_cublas.py /tmp/points8.csv $OUT/peer-points8.csv > $OUT/peer-points8.log 2>&1; echo "peer rc=$? $(( $(date +%s) - s )) s"; head -1 $OUT/peer-points8.log
pk8=$(sed -n '1s/.* e4m3 dense \([0-9][0-9]*\) TFLOP\/s.*/\1e12/p' $OUT/peer-points8.log)
s=$(date +%s)
timeout 300 .gpu3/autotune tune -model llama3-8b -dtypes e4m3 -max-m 8192 -prune 2 -keep 1.15 -out $OUT/buckets.yaml -report /tmp/report8 -peer $OUT/peer-points8.csv ${pk8:+-peak-fp8 $pk8} -driver 580.159.04 > $OUT/tune.log 2> /tmp/tune-progress.log; echo "tune rc=$? $(( $(date +%s) - s )) s"; tail -25 $OUT/tune.log; tail -3 /tmp/tune-progress.log
cp /tmp/report8/tune.md $OUT/tune.md 2>/dev/null; ls /tmp/report8 | head
