# Ninth session, call 2: issue 17 — what cuBLAS runs at the buckets' low edges (M = 2^k + 1), where a 128-row token
# tile computes up to 127 rows past M (call 0: o M = 513, cuBLAS 25.3 µs, our best 33.2), beside the upper edges; and
# our 64-row token tiles there beside the 128-row ones (kbench timeall), for the next kernel step.
set -uo pipefail
tar xzf .gpu-bin/bins.tgz; export GEMMROUTE_KERNEL_DIR=$PWD/kernels; s=$(date +%s)
export CUBLAS_LIB=$(find / -xdev -name 'libcublas.so.1[0-9]*' 2>/dev/null | grep -v Lt | head -1)
t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s"; }
timeout 120 python3 scripts/cublas_kernels.py docs/perf/2026-12-05-h200/edges.csv $OUT/cublas-kernels.csv > $OUT/cublas-kernels.log 2>&1; t cublas-kernels $?
timeout 200 .gpu/kbench timeall 512,513,1024,1025 "_tn_64x,sk_ts_bf16_bf16_f32_tn_128x192,sk_ts_bf16_bf16_f32_tn_128x256" 4096x4096,6144x4096 > $OUT/time-64.log 2>&1; t time-64 $?
grep -v "^   " $OUT/time-64.log | grep -E "^ +[0-9]"
echo "total $(( $(date +%s) - s )) s"
