# call 1: issue 17 mid M — which kernels cuBLAS runs at M = 16…1024 (torch profiler: names carry tile, cluster,
# split), and ncu (speed of light, memory, warp stalls) of cuBLAS beside our table's choice at qkv M = 128 and 256; then issue 18 §2: tune Llama-3-8B's four weights in e4m3→bf16 per-row and 128-block (the kernels as
# they stand), time _scaled_mm of the same scalings and bench the tuned table beside it.
set -uo pipefail
tar xzf .gpu-bin/bins.tgz; export GEMMROUTE_KERNEL_DIR=$PWD/kernels; s=$(date +%s); D=docs/perf/2026-12-02-h200-b
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
PYTHONUNBUFFERED=1 timeout 60 python3 scripts/cublas_kernels.py $D/shapes-mid.csv > $OUT/cublas-kernels.log 2>&1; echo "kernels rc=$? $(( $(date +%s) - s )) s"
export CUBLAS_LIB=$(find / -xdev -name 'libcublas.so.1[0-9]*' 2>/dev/null | grep -v Lt | head -1)
X="dram__bytes_read.sum,lts__t_sector_hit_rate.pct,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed,l1tex__m_xbar2l1tex_read_bytes.sum,sm__cycles_active.avg,smsp__cycles_active.avg"
for c in "128 6144x4096 nvjet|xmma|cutlass" "128 6144x4096 ws_wgmma_swap_bf16_bf16_f32_tn_64x128x64" \
         "256 6144x4096 nvjet|xmma|cutlass" "256 6144x4096 ws_wgmma_bf16_bf16_f32_tn_128x128x64_w12_s6"; do
  set -- $c; f=${3%%|*}; [ "$f" = nvjet ] && f=zzz_none
  echo "=== M=$1 $2 $3" >> $OUT/ncu.log
  timeout 45 ncu --clock-control none --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats \
    --section LaunchStats --section Occupancy --metrics $X --kernel-name regex:"$3" --launch-skip 3 --launch-count 1 \
    .gpu/kbench time $1 $f $2 >> $OUT/ncu.log 2>&1
done; echo "ncu $(( $(date +%s) - s )) s"
grep -E "^===|nvjet|gemmroute_|Duration|DRAM Throughput|Memory Throughput|hmma|dram__bytes|xbar2l1tex|Grid Size|Block Size|Registers" $OUT/ncu.log | head -80
drv=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
timeout 310 .gpu/autotune tune -model llama3-8b -types 'e4m3->bf16/row,e4m3->bf16/block128' -reps 10 -event-calls 10 \
  -out $OUT/buckets-e4m3.yaml -report $OUT/rep -driver "$drv" > $OUT/tune.log 2>&1; echo "tune rc=$? $(( $(date +%s) - s )) s"; tail -3 $OUT/tune.log; (cd $OUT && tar czf rep.tgz rep && rm -rf rep)
grep -vE ",tensor$" .gpu/shapes-llama3-8b-e4m3.csv > /tmp/e4m3-rb.csv
PYTHONUNBUFFERED=1 timeout 75 python3 .gpu/peer_cublas.py /tmp/e4m3-rb.csv $OUT/peer.csv > $OUT/peer.log 2>&1; echo "peer rc=$?"; head -2 $OUT/peer.log
timeout 60 .gpu/autotune bench -shapes /tmp/e4m3-rb.csv -peer $OUT/peer.csv -csv $OUT/bench.csv -table $OUT/buckets-e4m3.yaml > $OUT/bench.log 2>&1; echo "bench rc=$? $(( $(date +%s) - s )) s"
tail -30 $OUT/bench.log
echo "total $(( $(date +%s) - s )) s"
