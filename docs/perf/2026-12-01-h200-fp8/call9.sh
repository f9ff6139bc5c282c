# call 9: compute-sanitizer memcheck and initcheck of the promoted e4m3 kernels (every kbench8 instance, every mode, two small shapes)
timeout 200 compute-sanitizer --tool memcheck ./.gpu3/kbench8 memcheck > $OUT/memcheck.log 2>&1; echo "memcheck rc=$?"; grep -c PASS $OUT/memcheck.log; tail -3 $OUT/memcheck.log
timeout 200 compute-sanitizer --tool initcheck ./.gpu3/kbench8 memcheck "" "ws8_128x128,sw8_16x64,b128_128,b128sw_16x64,dmma8_8x16_w8_u2_l1" > $OUT/initcheck.log 2>&1; echo "initcheck rc=$?"; grep -c PASS $OUT/initcheck.log; tail -3 $OUT/initcheck.log
