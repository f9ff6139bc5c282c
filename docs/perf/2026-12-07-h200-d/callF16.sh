# Twenty-second session, after call I in the same command (any card): issue 18's f16 entries, the next range. Llama-3-8B's
# four weights and the default entry tuned in f16 at M = 17…256 (our kernels only, correctness-gated, graph replay) on the
# committed table, whose f16 buckets 1…16 are the H200's measured ones (schema 4: each bucket says its own source, device
# and date, so an H100's buckets can sit beside them).
# Prediction (before the run): the f16 routes follow the bf16 ones — in at least 15 of the 20 (weight, bucket) pairs the
# route is the f16 twin of the bf16 entry's route there (same family and tile), the rest its runner-up's twin.
# usage: [LIMIT=SECONDS] [LO=17 HI=256 BASE=buckets.yaml] [FLAGS='more tune flags'] bash callF16.sh   (carry .gpu-bin:
# r.txz with autotune from 766f654 or later: the tune stops starting buckets 90 s before LIMIT, -time-limit; writes
# buckets-F16-LO.yaml, tune-F16-LO.md; the next ranges: LO=257 HI=2048, then LO=2049 HI=8192, each on the table the last
# one wrote, or on the committed table once that one is spliced)
set -uo pipefail
s=$(date +%s); t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s"; }
[ -x .gpu/autotune ] || python3 -c "import tarfile; tarfile.open('.gpu-bin/r.txz').extractall()"
export GEMMROUTE_KERNEL_DIR=$PWD/kernels; drv=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
LO=${LO:-17} HI=${HI:-256}
timeout ${LIMIT:-300} .gpu/autotune tune -model llama3-8b -types f16 -vendor=false -min-m $LO -max-m $HI -reps 10 -event-calls 10 \
  -time-limit $(( ${LIMIT:-300} - 90 ))s ${FLAGS:-} -base ${BASE:-buckets.yaml} -out $OUT/buckets-F16-$LO.yaml -report /tmp/rep -driver "$drv" > /tmp/tune-F16.log 2>&1; t tune-F16-$LO…$HI $?
tail -2 /tmp/tune-F16.log | tr '\r' '\n' | tail -2; cp /tmp/rep/tune.md $OUT/tune-F16-$LO.md 2>/dev/null
echo "total $(( $(date +%s) - s )) s"
