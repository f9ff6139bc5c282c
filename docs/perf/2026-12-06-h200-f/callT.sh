# Eighteenth session, any Hopper card (name it in the report): where the mid-M fixed cost goes. Call 1 (H100) fitted
# t = a + b·K at o (4096 rows), M = 64: cuBLAS a = 1.81 µs, our ts 64x96 a = 2.94 with a better slope. Here:
# (1) ncu's in-kernel duration of cuBLAS's kernel(s) and ours at K = 512 and 4096 (is the 1.1 µs inside the kernel
#     or in launching it?);
# (2) the trace build's stamps (kernels/src/ws_trace.cuh, kbench built with -DGR_TRACE) for ts 64x96, its register
#     twin ws_wgmma 64x96 and swap_ts 32x128 (KB 2) at K = 512 and 4096: entry → barriers → first load → first
#     stage full → main loop done → epilogue issued → exit, per block;
# (3) plain kbench graph-replay times of the same at K = 512 and 4096 beside cuBLAS.
# Prediction (before any run): ncu puts ours ≈ 1 µs above cuBLAS at K = 512 (in-kernel, not launch); the stamps put
# ≥ 1 µs between entry and the first full stage, and ≥ 0.6 µs between the main loop's end and the exit of ts 64x96
# (staging, the TMA store and its completion wait), less for the register twin's exit.
set -uo pipefail
s=$(date +%s); t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s"; }
export CUBLAS_LIB=$(find / -xdev -name 'libcublas.so.1[0-9]*' 2>/dev/null | grep -v Lt | head -1)
python3 -c "import tarfile; tarfile.open('.gpu-bin/trace.txz').extractall()"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
L=$OUT/trace.log; : > $L
for k in 512 4096; do
  for f in cublas ws_wgmma_ts_bf16_bf16_f32_tn_64x96 ws_wgmma_bf16_bf16_f32_tn_64x96 ws_wgmma_swap_ts_bf16_bf16_f32_tn_32x128x128; do
    timeout 60 ncu --metrics gpu__time_duration.sum,sm__cycles_elapsed.max --csv .gpu/kbench prof 64 $f 4096x$k 2>&1 \
      | grep -E '^"[0-9]' | grep -v 'fill' | sed "s/^/ncu K=$k $f /" >> $L
  done
done
t ncu $?
for k in 512 4096; do
  for f in ws_wgmma_ts_bf16_bf16_f32_tn_64x96 ws_wgmma_bf16_bf16_f32_tn_64x96 ws_wgmma_swap_ts_bf16_bf16_f32_tn_32x128x128; do
    for r in 1 2; do timeout 30 .gpu/kbench-trace prof 64 $f 4096x$k 2>&1 | grep -A8 '^trace' >> $L; done
  done
done
t trace $?
timeout 120 .gpu/kbench timeall 64 "ts_bf16_bf16_f32_tn_64x96,ws_wgmma_bf16_bf16_f32_tn_64x96,swap_ts_bf16_bf16_f32_tn_32x128x128" \
  4096x512,4096x4096 > $OUT/time.log 2>&1; t time $?
grep -E '^ncu' $L | awk -F'","' '{print $1, $5, $(NF-2), $NF}' | cut -c1-160
grep -E '^trace|exit|first stage|main loop|epilogue|barriers|producer' $L | head -80
grep -E 'cublas|sk1 ' $OUT/time.log | head -20
echo "total $(( $(date +%s) - s )) s"
