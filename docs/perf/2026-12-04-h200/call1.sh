# call 1: issue 17 — where the single-wave gap to cuBLAS lies (o-like N = 4096, M = 1024: ours 49.8 µs, cuBLAS 44.1):
# time against K (64 … 8192) for the 128x256 register / TMA-store and 256x128 TMA-store tiles and cuBLAS, so that
# T(K) = fixed + slope·K splits the gap into fixed cost (launch, prologue, epilogue) and main-loop rate. Then
# issue 18 §2: tune Llama-3-8B in e4m3→bf16 with 128-block scales (our kernels only) into a table to splice.
set -uo pipefail
tar xzf .gpu-bin/bins.tgz; export GEMMROUTE_KERNEL_DIR=$PWD/kernels; s=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
drv=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
export CUBLAS_LIB=$(find / -xdev -name 'libcublas.so.1[0-9]*' 2>/dev/null | grep -v Lt | head -1)
t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s"; }
F=ws_wgmma_ts_bf16_bf16_f32_tn_128x256,ws_wgmma_bf16_bf16_f32_tn_128x256,ws_wgmma_ts_bf16_bf16_f32_tn_256x128
timeout 90 .gpu/kbench timeall 1024 "$F" 4096x64,4096x256,4096x1024,4096x4096,4096x8192 > $OUT/ksweep.log 2>&1; t ksweep $?
grep -E "sk1 |cublas " $OUT/ksweep.log | grep -v pers | sed 's/  (R=.*//'
timeout 480 .gpu/autotune tune -model llama3-8b -types 'e4m3->bf16/block128' -vendor=false -reps 10 -event-calls 10 \
  -out $OUT/buckets-B128.yaml -report $OUT/rep -driver "$drv" > $OUT/tune-B128.log 2>&1; t tune $?; tail -2 $OUT/tune-B128.log | tr '\r' '\n' | tail -2
(cd $OUT && cp rep/tune.md tune-B128.md; rm -rf rep) 2>/dev/null; echo "total $(( $(date +%s) - s )) s"
