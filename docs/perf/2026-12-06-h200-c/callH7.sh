# Fifteenth session, on a card that is not the H200 (name it in the report): the M = 1024 gap against the spread.
# Calls 1–5 timed cuBLAS at 1024 × 14336 × 4096 between 151 and 178 µs on five H100s. Here four passes of the same
# graph-replay bench on one machine, back to back: our three best tiles there and cuBLAS, on 14336 and 6144 rows.
# Prediction (before any run): within this machine cuBLAS's four figures spread ≤ 3 %, and our best stays 0.86–0.92×
# cuBLAS on 14336 rows in every pass.
set -uo pipefail
tar xzf .gpu-bin/bins.tgz; export GEMMROUTE_KERNEL_DIR=$PWD/kernels; s=$(date +%s)
export CUBLAS_LIB=$(find / -xdev -name 'libcublas.so.1[0-9]*' 2>/dev/null | grep -v Lt | head -1)
t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
K="ws_wgmma_rn_ts_bf16_bf16_f32_tn_128x224x64,ws_wgmma_sk_ts_bf16_bf16_f32_tn_128x256x64,rn_mc2n_ts_bf16_bf16_f32_tn_256x160x64"
for i in 1 2 3 4; do
  timeout 100 .gpu/kbench timeall 1024 $K 14336x4096,6144x4096 > $OUT/time-$i.log 2>&1; t "pass $i" $?
  grep -vE "^   |^\s*$|active at once|weight NxK" $OUT/time-$i.log
done
echo "total $(( $(date +%s) - s )) s"
