# Eighth session, call 2 (written by the seventh session as docs/perf/next/call2.sh): issue 18's last table
# item — the 16-bit f16 entries are still the analytic model's. Tune them over Llama-3-8B, our kernels only (the
# e4m3→f16 tune of all buckets took 329 s in the seventh session; bf16-like candidates, ≈ 6 min).
set -uo pipefail
tar xzf .gpu-bin/bins.tgz; s=$(date +%s)
drv=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
timeout 560 .gpu/autotune tune -model llama3-8b -types f16 -vendor=false -reps 10 -event-calls 10 \
  -out $OUT/buckets-F16.yaml -report $OUT/rep -driver "$drv" > /tmp/tune-F16.log 2>&1; echo "tune rc=$? $(( $(date +%s) - s )) s"
tail -2 /tmp/tune-F16.log | tr '\r' '\n' | tail -2; (cd $OUT && cp rep/tune.md tune-F16.md; cp rep/tune.csv tune-F16.csv; rm -rf rep) 2>/dev/null
