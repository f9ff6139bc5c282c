# Issue 18's last table item in one call: the f16 tune of Llama-3-8B at M = 17…8192 (our kernels only), in three
# processes by M range (b 17…256, c 257…2048, d 2049…8192), each on the previous one's table, starting from the M = 1…16
# tune (docs/perf/2026-12-05-h200/c3/buckets-F16a2.yaml.xz, H200). Budget: M = 9…16 took 103 s on the H200; the bf16
# corpus retune of three buckets above 256 took 64 + 54 + 54 s on an H100 (this directory's call 1). A range cut by
# the call's budget writes nothing and the next range starts from the last table written: run again from it.
# usage: [LIMIT=SECONDS] bash f16-bcd.sh [BASE]   (BASE: the table to start from; the M = 1…16 tune by default; LIMIT: the
# call's budget, 585 s by default). On the H200 only.
set -uo pipefail
tar xzf .gpu-bin/bins.tgz; export GEMMROUTE_KERNEL_DIR=$PWD/kernels; s=$(date +%s)
drv=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s"; }
B=${1:-docs/perf/2026-12-05-h200/c3/buckets-F16a2.yaml.xz}
for r in b:17:256 c:257:2048 d:2049:8192; do
  IFS=: read n lo hi <<< "$r"; left=$(( ${LIMIT:-585} - ($(date +%s) - s) )); [ $left -lt 40 ] && { echo "no time for $n"; break; }
  timeout $left .gpu/autotune tune -model llama3-8b -types f16 -vendor=false -min-m $lo -max-m $hi -reps 10 -event-calls 10 \
    -base $B -out $OUT/buckets-F16$n.yaml -report /tmp/rep -driver "$drv" > /tmp/tune-$n.log 2>&1; t tune-$n $?
  tail -2 /tmp/tune-$n.log | tr '\r' '\n' | tail -1; cp /tmp/rep/tune.md $OUT/tune-F16$n.md 2>/dev/null; rm -rf /tmp/rep
  [ -s $OUT/buckets-F16$n.yaml ] && B=$OUT/buckets-F16$n.yaml
done
echo "last table: $B; total $(( $(date +%s) - s )) s"
