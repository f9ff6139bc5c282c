# call 3: the whole GPU test suite on the rebuilt fatbins (the multicast kernels through the engine), the quick start and examples/linear
set -uo pipefail
export GEMMROUTE_KERNEL_DIR=$PWD/kernels; s=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/gpu.txt
(cd dispatch && timeout 300 ../.gpu/dispatch.test -test.v -test.timeout 290s) > $OUT/gputest.log 2>&1; echo "tests rc=$? $(( $(date +%s) - s )) s"
grep -E '^--- FAIL|^(ok|FAIL|PASS)$' $OUT/gputest.log | head -20; grep -c '^--- PASS' $OUT/gputest.log; grep -i "mc2" $OUT/gputest.log | head -5
timeout 60 .gpu/quickstart > $OUT/quickstart.log 2>&1; echo "quickstart rc=$?"; tail -2 $OUT/quickstart.log
timeout 60 .gpu/linear > $OUT/linear.log 2>&1; echo "linear rc=$?"; tail -1 $OUT/linear.log
echo "total $(( $(date +%s) - s )) s"
