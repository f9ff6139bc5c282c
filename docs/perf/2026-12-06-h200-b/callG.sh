# Fourteenth session, for a card that is not the H200 after callK2.sh: the whole dispatch GPU suite, the first time the
# BM = 256 tiles (256x128, 256x160; experimental) run through the engine's own launch path — tensor maps encoded by
# the shim, the engine's grids — against the float64 reference at the awkward shapes (TestEveryKernelOnAwkwardShapes),
# and in the reduction classes the generator stated for them (TestReductionClassesAgree). Name the card in the report.
set -uo pipefail
tar xzf .gpu-bin/bins.tgz; export GEMMROUTE_KERNEL_DIR=$PWD/kernels; s=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
(cd dispatch && timeout 280 ../.gpu/dispatch.test -test.timeout 270s -test.v) > $OUT/gputest.log 2>&1; echo "gputest rc=$? $(( $(date +%s) - s )) s"
grep -E '^(--- FAIL|ok|FAIL|PASS)' $OUT/gputest.log | head -20; echo "pass $(grep -c '^--- PASS' $OUT/gputest.log) skip $(grep -c -- '--- SKIP' $OUT/gputest.log)"
grep -E -- '--- (PASS|FAIL): (TestEveryKernelOnAwkwardShapes|TestReductionClassesAgree|TestBatchInvariantRows)' $OUT/gputest.log
grep -E "256x1[26]0" $OUT/gputest.log | grep -iE "fail|mismatch|differ" | head
