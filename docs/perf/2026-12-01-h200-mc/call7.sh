# call 7: the whole GPU test suite on main as it lands (the ws_wgmma header split — the four ping-pong kernels' SASS
# differs by a register renaming — the engine's launch path from the plan, the context fix), the quick start and examples/linear
set -uo pipefail
export GEMMROUTE_KERNEL_DIR=$PWD/kernels; s=$(date +%s)
(cd dispatch && timeout 200 ../.gpu/dispatch.test -test.v -test.timeout 190s) > $OUT/gputest.log 2>&1; echo "tests rc=$? $(( $(date +%s) - s )) s"
grep -E '^--- FAIL|^(ok|FAIL|PASS)$' $OUT/gputest.log | head -20; grep -c '^--- PASS' $OUT/gputest.log; grep "kernels (" $OUT/gputest.log | head -2
timeout 40 .gpu/quickstart > $OUT/quickstart.log 2>&1; echo "quickstart rc=$?"; tail -1 $OUT/quickstart.log
timeout 40 .gpu/linear > $OUT/linear.log 2>&1; echo "linear rc=$?"; tail -1 $OUT/linear.log
echo "total $(( $(date +%s) - s )) s"
