# call 7 (run inline, saved verbatim): the engine's GPU test suite on main's fatbins, with the dispatch.test built at the
# start of the session (before the table commit).
tar xzf .gpu-bin/bins.tgz; export GEMMROUTE_KERNEL_DIR=$PWD/kernels; cd dispatch && timeout 200 ../.gpu/dispatch.test -test.timeout 190s -test.v > $OUT/gputest.log 2>&1; echo rc=$?; grep -E "^(--- FAIL|FAIL|ok|PASS)" $OUT/gputest.log | head; grep -c "^--- PASS" $OUT/gputest.log; grep -c "^--- SKIP" $OUT/gputest.log; grep -B2 -A12 "^--- FAIL" $OUT/gputest.log | head -60
