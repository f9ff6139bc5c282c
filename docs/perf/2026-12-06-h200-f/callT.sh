# Eighteenth session, any Hopper card (name it in the report): where the mid-M fixed cost goes. Call 1 (H100) fitted
# t = a + b·K at o (4096 rows), M = 64: cuBLAS a = 1.81 µs, our ts 64x96 a = 2.94 with a better slope. Here:
# (1) ncu's in-kernel duration of cuBLAS's kernel(s) and ours at K = 512 and 4096 (is the 1.1 µs inside the kernel
#     or in launching it?);
# (2) the trace build's stamps (kernels/src/ws_trace.cuh, kbench built with -DGR_TRACE) for ts 64x96, its register
#     twin ws_wgmma 64x96 and swap_ts 32x128 (KB 2) at K = 512 and 4096: entry → barriers → first load → first
#     stage full → main loop done → epilogue issued → exit, per block;
# (3) the early-exit TMA-store tiles (ws_wgmma_ex_ts, ws_wgmma_swap_ex_ts: EPI = gr::ws_epi_tma_early, consumers
#     exit once their last stores have read the staging buffer; experimental, never run): kbench check (float64
#     reference, awkward shapes) and memcheck;
# (4) plain kbench graph-replay times of the same and the ex tiles at K = 512 and 4096 beside cuBLAS, two passes.
# Prediction (before any run): ncu puts ours ≈ 1 µs above cuBLAS at K = 512 (in-kernel, not launch); the stamps put
# ≥ 1 µs between entry and the first full stage, and ≥ 0.6 µs between the main loop's end and the exit of ts 64x96
# (staging, the TMA store and its completion wait), less for the register twin's exit; ex_ts 64x96 0.2–0.5 µs
# faster than ts 64x96 at both K (the exit no longer waits for the writes), swap_ex_ts likewise.
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
  for f in ws_wgmma_ts_bf16_bf16_f32_tn_64x96 ws_wgmma_ex_ts_bf16_bf16_f32_tn_64x96 ws_wgmma_bf16_bf16_f32_tn_64x96 ws_wgmma_swap_ts_bf16_bf16_f32_tn_32x128x128; do
    for r in 1 2; do timeout 30 .gpu/kbench-trace prof 64 $f 4096x$k 2>&1 | grep -A8 '^trace' >> $L; done
  done
done
t trace $?
timeout 90 .gpu/kbench check "" ex_ts > $OUT/ex-check.log 2>&1; t check $?; tail -1 $OUT/ex-check.log
timeout 90 compute-sanitizer --tool memcheck .gpu/kbench memcheck "" ex_ts > /tmp/ex-memcheck.log 2>&1; t memcheck $?; tail -2 /tmp/ex-memcheck.log
for r in 1 2; do
  timeout 100 .gpu/kbench timeall 64,128 "ts_bf16_bf16_f32_tn_64x96,ts_bf16_bf16_f32_tn_128x96,ws_wgmma_bf16_bf16_f32_tn_64x96,swap_ts_bf16_bf16_f32_tn_32x128x128,swap_ts_bf16_bf16_f32_tn_16x128,swap_ex_ts,ex_ts_bf16_bf16_f32_tn_64x96,ex_ts_bf16_bf16_f32_tn_128x96" \
    4096x512,4096x4096 > $OUT/time$r.log 2>&1; t time$r $?
done
python3 - $OUT/time1.log $OUT/time2.log <<'PY'
import re, sys, collections
d = collections.defaultdict(list)
for f in sys.argv[1:]:
    for l in open(f):
        m = re.match(r'\s+(\S+)\s+M=(\d+)\s+N=(\d+)\s+K=(\d+)\s+([\d.]+) us', l)
        if m and (m[1] == 'cublas' or m[1].endswith('/sk1')): d[(int(m[2]), int(m[4]), m[1])].append(float(m[5]))
for (M, K, name), v in sorted(d.items()):
    print('M=%-4d K=%-5d %-62s %s' % (M, K, name[:62], ' '.join('%.2f' % x for x in v)))
PY
grep -E '^ncu' $L | awk -F'","' '{print $1, $5, $(NF-2), $NF}' | cut -c1-160
grep -E '^trace|exit|first stage|main loop|epilogue|barriers|producer' $L | head -80
echo "total $(( $(date +%s) - s )) s"
