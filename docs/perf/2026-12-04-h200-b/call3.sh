# call 3: issue 18 — the e4m3→f16 (per-tensor scales) entries measured over Llama-3-8B, our kernels only, with the
# e4m3 TMA-store twins admitted (call 0: correct, memcheck clean). The sixth session's try ran out of 215 s at 23 of
# 56 units: this call gives it 570 s.
set -uo pipefail
tar xzf .gpu-bin/bins.tgz; s=$(date +%s)
drv=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
timeout 570 .gpu/autotune tune -model llama3-8b -types 'e4m3->f16' -vendor=false -reps 10 -event-calls 10 \
  -out $OUT/buckets-F16.yaml -report $OUT/rep -driver "$drv" > $OUT/tune-F16.log 2>&1; echo "tune rc=$? $(( $(date +%s) - s )) s"
tail -2 $OUT/tune-F16.log | tr '\r' '\n' | tail -2; (cd $OUT && cp rep/tune.md tune-F16.md; cp rep/tune.csv tune-F16.csv; rm -rf rep) 2>/dev/null
