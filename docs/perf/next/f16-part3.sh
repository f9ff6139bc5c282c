# Next session, f16 tune part 3 of 4 (written by the eighth session; move it into the session's directory and save
# what it writes there, so that the next part carries its table): issue 18's last table item, the 16-bit f16 entries
# measured over Llama-3-8B, our kernels only. The whole tune took ≈ 21 minutes (the eighth session's call 2 was cut at
# 25 of 56 points after 560 s and wrote nothing), so it runs by M range, each part on the previous part's table.
set -uo pipefail
tar xzf .gpu-bin/bins.tgz; export GEMMROUTE_KERNEL_DIR=$PWD/kernels; s=$(date +%s)
drv=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
timeout 570 .gpu/autotune tune -model llama3-8b -types f16 -vendor=false -min-m 257 -max-m 2048 -reps 10 -event-calls 10 -base PREV/buckets-F16b.yaml \
  -out $OUT/buckets-F16c.yaml -report $OUT/rep -driver "$drv" > /tmp/tune.log 2>&1; echo "tune rc=$? $(( $(date +%s) - s )) s"
tail -2 /tmp/tune.log | tr '\r' '\n' | tail -2; (cd $OUT && cp rep/tune.md tune-F16c.md; gzip -c rep/tune.csv > tune-F16c.csv.gz; rm -rf rep) 2>/dev/null
