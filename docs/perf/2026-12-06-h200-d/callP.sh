# Sixteenth session, any Hopper card (name it in the report): programmatic dependent launch (PDL).
# Question: in graph replay cuBLAS beats our best mid-M tiles by 8 % (H100) to 18 % (H200) at o 4096 × 4096, M = 64,
# while one cold launch under ncu has them within 3 % (docs/perf/2026-12-06-h200-b). Do cuBLAS's captured launches
# carry programmatic edges (its next kernel starting before the last one ends), and what does PDL give ours?
# kbench prints each graph's edges and how many are programmatic; KB_PDL=1 launches our kernels with the
# programmatic-serialization attribute (each block waits at entry for the kernel before, then lets the next launch).
# Prediction (before any run): cuBLAS's graphs have programmatic edges; with PDL our best at o M = 64 gains 1–2 µs
# (0.92× → ≥ 0.98× cuBLAS on an H100) and M = 32…256 all gain about as much; M = 1024 gains < 3 %. Correctness: kbench
# check with KB_PDL=1 on the same instances (a fill kernel writes A and B just before each launch).
set -uo pipefail
s=$(date +%s); t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s"; }
export CUBLAS_LIB=$(find / -xdev -name 'libcublas.so.1[0-9]*' 2>/dev/null | grep -v Lt | head -1)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
F="ts_bf16_bf16_f32_tn_64x96,swap_ts_bf16_bf16_f32_tn_32x128x128,swap_sk_ts_bf16_bf16_f32_tn_32x128x64,swap_mc2_ts_bf16_bf16_f32_tn_32x64,sh_ts_bf16_bf16_f32_tn_128x96"
L="ws_wgmma_ts_bf16_bf16_f32_tn_128x256,sk_ts_bf16_bf16_f32_tn_128x192,rn_sk_ts_bf16_bf16_f32_tn_128x256"
KB_PDL=1 timeout 120 .gpu/kbench check all "$F,$L" > $OUT/check-pdl.log 2>&1; t check-pdl $?; tail -1 $OUT/check-pdl.log
for i in 1 2; do
  for pdl in 0 1; do
    KB_PDL=$pdl timeout 120 .gpu/kbench timeall 32,64,128,256 "$F" 4096x4096,6144x4096 > $OUT/mid-$i-$pdl.log 2>&1; t "mid pass $i pdl $pdl" $?
    KB_PDL=$pdl timeout 60 .gpu/kbench timeall 1024 "$L" 4096x4096,6144x4096 > /tmp/big-$i-$pdl.log 2>&1; t "big pass $i pdl $pdl" $?
    cat /tmp/big-$i-$pdl.log >> $OUT/big.log
  done
done
grep -h "programmatic" $OUT/mid-1-0.log | head -3; grep -h "programmatic [1-9]" $OUT/mid-1-1.log | head -2
for f in $OUT/mid-*.log; do echo "== $f"; grep -vE "^   |^\s*$|active at once|weight NxK" $f; done
echo "== big"; grep -vE "^   |^\s*$|active at once|weight NxK" $OUT/big.log
echo "total $(( $(date +%s) - s )) s"
