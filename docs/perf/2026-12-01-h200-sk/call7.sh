# call 7: the whole GPU suite on main as it lands (stream-K kernels, per-kernel digests in the table, the retuned
# table), the quick start and examples/linear
set -uo pipefail
export GEMMROUTE_KERNEL_DIR=$PWD/kernels; s=$(date +%s)
(cd dispatch && timeout 190 ../.gpu/dispatch.test -test.v -test.timeout 185s) > $OUT/gputest.log 2>&1; echo "tests rc=$? $(( $(date +%s) - s )) s"
grep -E '^--- FAIL|^(ok|FAIL|PASS)$' $OUT/gputest.log | head -20; grep -c '^--- PASS' $OUT/gputest.log; grep "kernels (\|bit-identical" $OUT/gputest.log | head -3
timeout 30 .gpu/quickstart > $OUT/quickstart.log 2>&1; echo "quickstart rc=$?"; tail -1 $OUT/quickstart.log
timeout 30 .gpu/linear > $OUT/linear.log 2>&1; echo "linear rc=$?"; tail -1 $OUT/linear.log
echo "total $(( $(date +%s) - s )) s"
