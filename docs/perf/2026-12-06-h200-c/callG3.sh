# Fifteenth session, on a card that is not the H200 (name it in the report): the whole dispatch GPU suite on this
# session's fatbins (430 kernels: the 128x224 and the ping-pong TMA-store tiles added, every earlier digest
# unchanged), as ../2026-12-06-h200-b/callG.sh ran it on the fourteenth session's. Prediction: every test passes, none
# skipped.
set -uo pipefail
tar xzf .gpu-bin/bins.tgz; export GEMMROUTE_KERNEL_DIR=$PWD/kernels; s=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
(cd dispatch && timeout 280 ../.gpu/dispatch.test -test.timeout 270s -test.v) > $OUT/gputest.log 2>&1; echo "gputest rc=$? $(( $(date +%s) - s )) s"
grep -E '^(--- FAIL|ok|FAIL|PASS)' $OUT/gputest.log | head -20; echo "pass $(grep -c '^--- PASS' $OUT/gputest.log) skip $(grep -c -- '--- SKIP' $OUT/gputest.log)"
grep -E -- '--- (PASS|FAIL): (TestEveryKernelOnAwkwardShapes|TestReductionClassesAgree|TestBatchInvariantRows)' $OUT/gputest.log
