# call 5: the GPU tests on main (e4m3 and ws_wgmma_pp included), then tune e4m3, then bench e4m3 beside _scaled_mm
export GEMMROUTE_KERNEL_DIR=$PWD/kernels
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
s=$(date +%s)
(cd dispatch && timeout 330 ../.gpu3/dispatch.test -test.v -test.timeout 320s) > $OUT/gputest.log 2>&1; echo "gputest rc=$? $(( $(date +%s) - s )) s"
grep -E '^(--- FAIL|FAIL|ok|PASS)' $OUT/gputest.log | head -20; grep -E -- '--- FAIL' -A12 $OUT/gputest.log | head -60
timeout 60 compute-sanitizer --tool memcheck .gpu3/kbench8 memcheck "" "pp8" > $OUT/memcheck-pp8.log 2>&1; echo "memcheck rc=$?"; tail -3 $OUT/memcheck-pp8.log
