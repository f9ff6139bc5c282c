# call 8: the engine's GPU tests that run every kernel, on main's fatbins with the swap TMA-store kernels
# (ws_wgmma_swap_ts): the awkward table against the float64 reference, > 2^31 elements, reduction classes bit for
# bit (swap_ts shares its register twin's class: the same sums in the same order), split-K determinism, graphs.
set -uo pipefail
tar xzf .gpu-bin/bins.tgz; export GEMMROUTE_KERNEL_DIR=$PWD/kernels; s=$(date +%s)
R='TestEveryKernelOnAwkwardShapes|TestMoreThan2p31Elements|TestReductionClassesAgree|TestSplitKDeterministic|TestGraphCaptureMatchesDirect|TestBadInputLaunchesNothing'
(cd dispatch && timeout 170 ../.gpu/dispatch.test -test.run "$R" -test.timeout 160s -test.v) > $OUT/gputest.log 2>&1; echo "gputest rc=$? $(( $(date +%s) - s )) s"
grep -E '^(--- FAIL|--- PASS|--- SKIP|ok|FAIL|PASS)' $OUT/gputest.log | head -20; grep -c "swap_ts" $OUT/gputest.log
