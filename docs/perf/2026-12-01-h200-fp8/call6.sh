# call 6: the GPU tests on main after the promotion fix, then kbench8's timing of the promoted e4m3 kernels
export GEMMROUTE_KERNEL_DIR=$PWD/kernels
s=$(date +%s)
(cd dispatch && timeout 330 ../.gpu3/dispatch.test -test.v -test.timeout 320s) > $OUT/gputest.log 2>&1; echo "gputest rc=$? $(( $(date +%s) - s )) s"
grep -E '^(--- FAIL|FAIL|ok|PASS)' $OUT/gputest.log | head -20; grep -E -A3 -e '--- FAIL' $OUT/gputest.log | grep "gpu_test.go" | cut -c1-400 | head -20
grep "worst" $OUT/gputest.log | grep -o "e4m3→[a-z0-9]* [a-z0-9-]*: [0-9]* runs, worst |D−ref|/bound [0-9.]*" | sort -t' ' -k7 -n | tail -5
timeout 200 ./.gpu3/kbench8 time 1,16,256,1024,4096 "" > $OUT/time.log 2>&1; echo "time rc=$?"; cat $OUT/time.log
