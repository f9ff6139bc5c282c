set -x
timeout 120 ./.kb/kbench8 check "" "dmma8,ws8_128x128_s3_k2,ws8_128x256_s2_k2" > $OUT/check.log 2>&1; echo "check rc=$?" >> $OUT/check.log
tail -2 $OUT/check.log; grep FAIL $OUT/check.log | head -10
timeout 240 ./.kb/kbench8 time 1,2,4,8,16,32,64,128,256,512,1024,2048,4096 > $OUT/time.log 2>&1; echo "time rc=$?" >> $OUT/time.log
cat $OUT/time.log
PYTHONUNBUFFERED=1 timeout 240 python3 scripts/peer_cublas.py scripts/shapes-llama3-8b-e4m3.csv $OUT/peer-e4m3.csv > $OUT/peer-e4m3.log 2>&1; echo "peer rc=$?"
head -5 $OUT/peer-e4m3.log; tail -5 $OUT/peer-e4m3.log; cat $OUT/peer-e4m3.csv | cut -d, -f1-12 | head -70
