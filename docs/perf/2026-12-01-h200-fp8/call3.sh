timeout 100 ./.kb/kbench8 check "" "dmma8_8x16_w8_u2_l1,dmma8_16x32_w8_u2_l2" > $OUT/check.log 2>&1; echo "check rc=$?" >> $OUT/check.log; tail -2 $OUT/check.log
timeout 200 ./.kb/kbench8 time 1,4,16,1024,4096 "" > $OUT/time.log 2>&1; echo "time rc=$?" >> $OUT/time.log
cat $OUT/time.log
