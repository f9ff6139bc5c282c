# call 1: the whole GPU suite on main (types refactor, repack variants, stream-K, batch-invariant tests), the examples,
# the odd shape's tune (repack candidates admitted; default 32 MiB workspace) and its bench beside cuBLAS,
# and the KB = 2 mid-M tiles in kbench beside cuBLAS.
set -uo pipefail
tar xzf .gpu-bin/bins.tgz; export GEMMROUTE_KERNEL_DIR=$PWD/kernels; s=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
(cd dispatch && timeout 220 ../.gpu/dispatch.test -test.v -test.timeout 215s) > $OUT/gputest.log 2>&1; echo "tests rc=$? $(( $(date +%s) - s )) s"
grep -E '^--- FAIL|^(ok|FAIL|PASS)$' $OUT/gputest.log | head -20; grep -c '^--- PASS' $OUT/gputest.log
timeout 30 .gpu/quickstart > $OUT/examples.log 2>&1; echo "quickstart rc=$?"; timeout 30 .gpu/linear >> $OUT/examples.log 2>&1; echo "linear rc=$?"
drv=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
timeout 170 .gpu/autotune tune -shapes .gpu/shapes-odd.csv -splits 1,2,4,8 -max-m 8192 -reps 10 -event-calls 10 \
  -out $OUT/buckets-odd.yaml -driver "$drv" > $OUT/tune.log 2>&1; echo "tune rc=$? $(( $(date +%s) - s )) s"; tail -4 $OUT/tune.log
PYTHONUNBUFFERED=1 timeout 60 python3 .gpu/peer_cublas.py .gpu/shapes-odd.csv $OUT/peer.csv > $OUT/peer.log 2>&1; echo "peer rc=$?"; head -1 $OUT/peer.log
timeout 60 .gpu/autotune bench -shapes .gpu/shapes-odd.csv -peer $OUT/peer.csv -csv $OUT/bench-odd.csv -table $OUT/buckets-odd.yaml > $OUT/bench.log 2>&1; echo "bench rc=$? $(( $(date +%s) - s )) s"
export CUBLAS_LIB=$(find / -xdev -name 'libcublas.so.1[0-9]*' 2>/dev/null | grep -v Lt | head -1)
timeout 100 .gpu/kbench time 64,128,256 x128x128 6144x4096,4096x4096,28672x4096,4096x14336 >> $OUT/bench.log 2>&1; echo "kbench rc=$? $(( $(date +%s) - s )) s"
grep -A20 "weight NxK" $OUT/bench.log
echo "total $(( $(date +%s) - s )) s"
