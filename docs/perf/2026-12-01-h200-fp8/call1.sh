set -x
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv
python3 -c "import torch; print('torch', torch.__version__, torch.version.cuda); print([n for n in dir(torch.nn.functional) if 'scal' in n.lower()]); import inspect; print(inspect.signature(torch._scaled_mm) if hasattr(torch,'_scaled_mm') else 'no _scaled_mm')" 2>&1 | tee $OUT/torch.txt
timeout 200 ./.kb/kbench8 check > $OUT/check.log 2>&1; echo "check rc=$?" >> $OUT/check.log
tail -3 $OUT/check.log; grep -c PASS $OUT/check.log; grep FAIL $OUT/check.log | head -20
timeout 90 compute-sanitizer --tool memcheck ./.kb/kbench8 memcheck "" "ws8_128x128,sw8_16x64,b128_128,b128sw_16x64,dmma8_16x16_w8_u2_l2,dfma8_1x4_v16" > $OUT/memcheck.log 2>&1; echo "memcheck rc=$?" >> $OUT/memcheck.log
tail -4 $OUT/memcheck.log
timeout 240 ./.kb/kbench8 time 1,4,16,64,256,1024,4096 > $OUT/time.log 2>&1; echo "time rc=$?" >> $OUT/time.log
cat $OUT/time.log
