# Next session, the f16 tune in parts by M range (written by the eighth session; move it into the session's directory
# and save what each part writes there, so that the next part carries its table): issue 18's last table item, the
# 16-bit f16 entries measured over Llama-3-8B, our kernels only. The whole tune took ≈ 21 minutes (the eighth session's
# call 2 was cut at 25 of 56 points after 560 s and wrote nothing), so it runs by M range, each part on the previous
# part's table:
#   bash f16-tune.sh a 1 16;  bash f16-tune.sh b 17 256 DIR/buckets-F16a.yaml;
#   bash f16-tune.sh c 257 2048 DIR/buckets-F16b.yaml;  bash f16-tune.sh d 2049 8192 DIR/buckets-F16c.yaml
# (PART MIN-M MAX-M [BASE]; without BASE the committed table). If a part is cut by its timeout, halve its range.
set -uo pipefail
part=$1 lo=$2 hi=$3 base=${4:+-base $4}
tar xzf .gpu-bin/bins.tgz; export GEMMROUTE_KERNEL_DIR=$PWD/kernels; s=$(date +%s)
drv=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
timeout 570 .gpu/autotune tune -model llama3-8b -types f16 -vendor=false -min-m $lo -max-m $hi -reps 10 -event-calls 10 $base \
  -out $OUT/buckets-F16$part.yaml -report $OUT/rep -driver "$drv" > /tmp/tune.log 2>&1; echo "tune rc=$? $(( $(date +%s) - s )) s"
tail -2 /tmp/tune.log | tr '\r' '\n' | tail -2; (cd $OUT && cp rep/tune.md tune-F16$part.md; gzip -c rep/tune.csv > tune-F16$part.csv.gz; rm -rf rep) 2>/dev/null
