# Call F (any Hopper card): call E's engine tests again after its fix (Open no longer asks a split_fixed kernel for
# a reduce function: call E's engine could not open). TestReductionClassesAgree (split-K 1, 2, 4, ks_ts among the
# kernels), TestSplitFixedTwoStreams, TestBatchInvariantRowsAtSplit, TestStreamKDeterministicAndReplayable.
# Then the user path the bug broke: routing the Llama shapes, any thread, streams nobody reserved, captures, bad input.
# Prediction: all pass (kbench's check, same and memcheck of ks_ts were clean in call E).
# usage: bash callF.sh   (carry .gpu-bin: f.txz with .gpu/dispatch.test from this commit)
set -uo pipefail
s=$(date +%s); S=$OUT/summary.txt
t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s" | tee -a $S; }
say() { tee -a $S; }
python3 -c "import tarfile; tarfile.open('.gpu-bin/f.txz').extractall()"
export GEMMROUTE_KERNEL_DIR=$PWD/kernels
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | say
(cd dispatch && timeout 240 ../.gpu/dispatch.test -test.count=1 -test.v -test.timeout 230s -test.run '^(TestReductionClassesAgree|TestSplitFixedTwoStreams|TestBatchInvariantRowsAtSplit|TestStreamKDeterministicAndReplayable)$' > $OUT/gpu-test.log 2>&1); t gpu-test $?
grep -E '^(--- |ok|FAIL|PASS)|kernels ran|pairs' $OUT/gpu-test.log | head -60 | say; grep -E '^\s+(Error|Messages)' $OUT/gpu-test.log | head -10 | say
# the user path, which the Open bug broke for every caller: routing, any thread, any stream, captures
(cd dispatch && timeout 120 ../.gpu/dispatch.test -test.count=1 -test.v -test.timeout 110s -test.run '^(TestRoutingLlamaShapes|TestGEMMFromAnyThread|TestEngineLifeFromAnyThread|TestStreamsWithoutReserveEagerAndCaptured|TestGraphCaptureMatchesDirect|TestBadInputLaunchesNothing)$' > $OUT/gpu-user.log 2>&1); t gpu-user $?
grep -E '^(--- |ok|FAIL|PASS)' $OUT/gpu-user.log | head -20 | say; grep -E '^\s+(Error|Messages)' $OUT/gpu-user.log | head -6 | say
