# call 6: issue 20 — call 4 showed the e4m3 TMA-store kernels well ahead of the register ones at large M (e4m3→f16 ts
# qkv M = 1024 46.6 µs against e4m3→bf16 register 56.1; gate_up M = 4096 773 against 888): retune e4m3→bf16
# (per-tensor) over Llama-3-8B at M = 513…8192 with them admitted, on the committed table, our kernels only. The
# bench waits for the next session (this session's device time ends here).
set -uo pipefail
tar xzf .gpu-bin/bins.tgz; s=$(date +%s)
drv=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
timeout 165 .gpu/autotune tune -model llama3-8b -types 'e4m3->bf16' -min-m 513 -vendor=false -reps 10 -event-calls 10 \
  -out $OUT/buckets-E.yaml -report $OUT/rep -driver "$drv" > $OUT/tune-E.log 2>&1; echo "tune rc=$? $(( $(date +%s) - s )) s"
tail -2 $OUT/tune-E.log | tr '\r' '\n' | tail -2; (cd $OUT && cp rep/tune.md tune-E.md; cp rep/tune.csv tune-E.csv; rm -rf rep) 2>/dev/null
