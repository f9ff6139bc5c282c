# call 1: issue 17 mid M — ncu of the split 128-token tile (ws_wgmma_sk 128x96) against the unsplit 128x96 and the
# 64x96 that scales, at qkv M = 128 (stall reasons, per-SM active cycles, L2/DRAM bytes), and of our large-M tiles
# beside cuBLAS at o M = 1024 (one wave of 128x256 tiles, 128 blocks, as cuBLAS's), 4096 x 14336 x 4096 and the floor
# probe 1024 x 4096 x 1024 (shared-memory and pipe utilization too); the first run of the
# A-multicast clusters along N (ws_wgmma_mc2n: check against the float64 reference, memcheck, timed beside cuBLAS);
# the chunked repack plan's GPU test and cuBLASLt's e4m3 per-tensor route's (first run); issue 22: the tuner's cuBLASLt candidates, first run (Llama-3-8B qkv and o, M = 17…512).
set -uo pipefail
tar xzf .gpu-bin/bins.tgz; export GEMMROUTE_KERNEL_DIR=$PWD/kernels; s=$(date +%s); D=docs/perf/2026-12-02-h200-c
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
export CUBLAS_LIB=$(find / -xdev -name 'libcublas.so.1[0-9]*' 2>/dev/null | grep -v Lt | head -1)
X="sm__cycles_active.max,sm__cycles_active.avg,sm__cycles_elapsed.max,dram__bytes_read.sum,lts__t_sector_hit_rate.pct,l1tex__m_xbar2l1tex_read_bytes.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed"
prof() {  # M name NxK split pers: the third of three launches
  echo "=== M=$1 $2 $3 split=$4 $5" >> $OUT/ncu.log
  local re=$2; [ "$2" = cublas ] && re="nvjet|xmma|cutlass|gemm"
  timeout 40 ncu --clock-control none --section SpeedOfLight --section WarpStateStats --section SourceCounters --section LaunchStats \
    --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis \
    --metrics $X --kernel-name regex:"$re" --launch-skip 2 --launch-count 1 .gpu/kbench prof "$@" >> $OUT/ncu.log 2>&1
}
prof 128 ws_wgmma_sk_bf16_bf16_f32_tn_128x96x64 6144x4096 1 no; prof 128 ws_wgmma_bf16_bf16_f32_tn_128x96x64 6144x4096 1 no
prof 128 ws_wgmma_bf16_bf16_f32_tn_64x96x64 6144x4096 1 no
prof 1024 ws_wgmma_bf16_bf16_f32_tn_128x256 4096x4096 1 no; prof 1024 cublas 4096x4096 1 no
prof 4096 ws_wgmma_mc2_bf16_bf16_f32_tn_128x256 14336x4096 1 pers; prof 4096 cublas 14336x4096 1 no; prof 1024 ws_wgmma_sk_bf16_bf16_f32_tn_128x256 4096x1024 1 no; prof 1024 cublas 4096x1024 1 no
echo "ncu $(( $(date +%s) - s )) s"
grep -E "^===|Duration|Grid Size|Shared Memory|L1/TEX Hit|Mem Busy|Max Bandwidth|Issue Slots Busy|sm__cycles_active|sm__cycles_elapsed|dram__bytes|xbar2l1tex|hmma|Stall|Warp Cycles Per Issued" $OUT/ncu.log | head -120
timeout 60 .gpu/kbench check "" mc2n > $OUT/check.log 2>&1; echo "check rc=$? $(( $(date +%s) - s )) s"; tail -1 $OUT/check.log; grep -E "WRONG|clusters of" $OUT/check.log | head -8
timeout 60 compute-sanitizer --tool memcheck .gpu/kbench memcheck "" mc2n > $OUT/memcheck.log 2>&1; echo "memcheck rc=$? $(( $(date +%s) - s )) s"; tail -2 $OUT/memcheck.log
timeout 150 .gpu/kbench timeall 32,64,128,256 "mc2n,64x96x64,64x64x128,128x96x64" 6144x4096,4096x4096,5120x4096,15360x5120 > $OUT/time.log 2>&1
echo "time rc=$? $(( $(date +%s) - s )) s"; grep -v "^   " $OUT/time.log | tail -18
(cd dispatch && timeout 60 ../.gpu/dispatch.test -test.v -test.timeout 55s -test.run '^(TestRepackInChunks|TestVendorRouteMatchesReference|TestVendorE4M3RouteMatchesReference|TestVendorE4M3GraphReadsNewScales)$') > $OUT/gputest.log 2>&1
echo "repack + vendor tests rc=$? $(( $(date +%s) - s )) s"; grep -E '^(--- |ok|FAIL|PASS)|chunk' $OUT/gputest.log | head -10
drv=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
timeout 130 .gpu/autotune tune -shapes $D/qkv-o.csv -min-m 17 -max-m 512 -reps 10 -event-calls 10 -out $OUT/buckets-vendor.yaml \
  -report $OUT/rep -driver "$drv" > $OUT/tune.log 2>&1; echo "vendor tune rc=$? $(( $(date +%s) - s )) s"; tail -4 $OUT/tune.log
(cd $OUT && cp rep/tune.md tune.md 2>/dev/null; rm -rf rep); echo "total $(( $(date +%s) - s )) s"
