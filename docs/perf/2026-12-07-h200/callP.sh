# Nineteenth session, any Hopper card: the producer's prologue. Call 1's stamps put the producer's first load 384 ns
# after the barriers (512 ns after entry) in ts 64x96 at o, M = 64. Here thread 32 prefetches the tensor maps at
# entry and every thread builds the schedule before the barriers' setup (prologue.patch, on top of the N-tail fix),
# so thread 0's barrier setup overlaps the parameter loads and the descriptors' fetch.
# Prediction (before any run): stamp 2 (first load about to issue) ≤ 300 ns after entry (512 before), stamp 3 (first
# stage full) 150–250 ns earlier; graph replay 0.1–0.25 µs faster at K = 512 and 4096 for ts 64x96 and swap_ts
# 32x128, cuBLAS unchanged; kbench check of the ts and register tiles passes.
# usage: bash callP.sh   (carry .gpu-bin: p.txz has kbench (N-tail fix), kbench-pro and kbench-pro-trace (with the
# prologue change) and kbench-trace (call 1's trace build))
set -uo pipefail
s=$(date +%s); t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s"; }
export CUBLAS_LIB=$(find / -xdev -name 'libcublas.so.1[0-9]*' 2>/dev/null | grep -v Lt | head -1)
python3 -c "import tarfile; tarfile.open('.gpu-bin/p.txz').extractall()"
timeout 90 .gpu/kbench-pro check "" "ts_bf16,ws_wgmma_bf16,sk_bf16" > /tmp/checkp.log 2>&1; t check $?; tail -1 /tmp/checkp.log
timeout 60 compute-sanitizer --tool memcheck .gpu/kbench-pro memcheck "" "ts_bf16_bf16_f32_tn_64x96,sk_ts_bf16_bf16_f32_tn_128x192" > /tmp/memp.log 2>&1; t memcheck $?; tail -1 /tmp/memp.log
for k in 512 4096; do
  for f in ws_wgmma_ts_bf16_bf16_f32_tn_64x96 ws_wgmma_swap_ts_bf16_bf16_f32_tn_32x128x128; do
    for b in kbench-trace kbench-pro-trace; do
      echo "== $b K=$k" >> $OUT/trace.log; timeout 30 .gpu/$b prof 64 $f 4096x$k 2>&1 | grep -A8 '^trace' >> $OUT/trace.log
    done
  done
done
t trace $?
K="ts_bf16_bf16_f32_tn_64x96,ts_bf16_bf16_f32_tn_128x96,swap_ts_bf16_bf16_f32_tn_32x128x128,sk_ts_bf16_bf16_f32_tn_128x192,ws_wgmma_bf16_bf16_f32_tn_128x128x64"
for r in 1 2; do
  for b in kbench kbench-pro; do
    timeout 60 .gpu/$b timeall 64,128 "$K" 4096x512,4096x4096 > /tmp/p-$b-$r.log 2>&1; t "time $b $r" $?
    timeout 60 .gpu/$b timeall 1024 "$K" 14336x4096 > /tmp/q-$b-$r.log 2>&1; t "time1024 $b $r" $?
  done
done
python3 docs/perf/2026-12-07-h200/ab.py base pro kbench-pro /tmp/[pq]-*.log > $OUT/prologue.txt
cat $OUT/prologue.txt; grep -E '^==|^trace| 2 producer| 3 first| 6 exit' $OUT/trace.log
echo "total $(( $(date +%s) - s )) s"
