#!/usr/bin/env bash
# Call 2: the awkward-table and >2^31 GPU tests again (after the K = 0 fix), the README's client,
# then tune Llama-3-8B bf16 with the ws families, and bench routing with the new table beside cuBLAS.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; start=$(date +%s)
export GEMMROUTE_KERNEL_DIR=$PWD/kernels
(cd dispatch && timeout 150 ../.gpu/dispatch.test -test.v -test.run 'TestEveryKernelOnAwkwardShapes|TestMoreThan2p31Elements|TestSplitKDeterministic') > "$OUT/gputest2.log" 2>&1; echo "tests rc=$? $(( $(date +%s) - start )) s"
grep -E '^--- |checked' "$OUT/gputest2.log" | head; grep -m3 -A3 'Error:' "$OUT/gputest2.log"
timeout 90 .gpu/linear > "$OUT/linear.log" 2>&1; echo "linear rc=$?"; tail -2 "$OUT/linear.log"
.gpu/autotune points -model llama3-8b -max-m 8192 -out /tmp/points.csv || exit 1
(cat /tmp/points.csv; tail -n +2 .gpu/shapes-llama3-8b.csv; tail -n +2 .gpu/shapes-odd.csv; tail -n +2 .gpu/shapes-heldout-bench.csv) | awk '!seen[$0]++' > /tmp/peerpts.csv
PYTHONUNBUFFERED=1 timeout 150 python3 .gpu/peer_cublas.py /tmp/peerpts.csv "$OUT/peer.csv" > /tmp/peer.log 2>&1; echo "peer rc=$? $(( $(date +%s) - start )) s"; head -1 /tmp/peer.log
drv=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
t0=$(date +%s)
timeout 330 .gpu/autotune tune -model llama3-8b -max-m 8192 -prune 2 -keep 1.15 -out "$OUT/buckets.yaml" -report /tmp/report -peer "$OUT/peer.csv" -driver "$drv" > "$OUT/tune.log" 2>/tmp/tune-progress.log; echo "tune rc=$? in $(( $(date +%s) - t0 )) s"; tail -3 "$OUT/tune.log"; tail -c 300 /tmp/tune-progress.log
tar czf "$OUT/report.tgz" -C /tmp report 2>/dev/null
(tail -n +1 .gpu/shapes-llama3-8b.csv; tail -n +2 .gpu/shapes-odd.csv; tail -n +2 .gpu/shapes-heldout-bench.csv) > /tmp/bench.csv
timeout 120 .gpu/autotune bench -shapes /tmp/bench.csv -peer "$OUT/peer.csv" -csv "$OUT/bench.csv" -table "$OUT/buckets.yaml" > /tmp/bench.log 2>&1; echo "bench rc=$?"; tail -3 /tmp/bench.log
tar czf "$OUT/logs.tgz" -C /tmp bench.log tune-progress.log peer.log 2>/dev/null
echo "total $(( $(date +%s) - start )) s"
