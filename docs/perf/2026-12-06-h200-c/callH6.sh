# Fifteenth session, call 6 on a card that is not the H200 (name it in the report): issue 17's floor "N = 4096,
# K = 1024 at M ≥ 256 ≥ 0.9×" at the kernel level — every 16-bit kernel of kbench (all tiles, splits, persistent or
# not) by graph replay at M = 256, 1024 and 4096 on a 4096 × 1024 weight beside cuBLAS; the five best of each M.
# Prediction (before any run): our best ≥ 0.90× cuBLAS at M = 1024 and 4096 (stream-K and the TMA store), below it
# at M = 256 (the table had 0.59–0.73 for untuned entries).
set -uo pipefail
tar xzf .gpu-bin/bins.tgz; export GEMMROUTE_KERNEL_DIR=$PWD/kernels; s=$(date +%s)
export CUBLAS_LIB=$(find / -xdev -name 'libcublas.so.1[0-9]*' 2>/dev/null | grep -v Lt | head -1)
t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 400 .gpu/kbench timeall 256,1024,4096 "" 4096x1024 > $OUT/time.log 2>&1; t timeall $?
grep -vE "^   |^\s*$|active at once" $OUT/time.log | tail -4
grep -E "^   (cublas|.*/sk[0-9]) " $OUT/time.log | awk '{print $1, $2, $5}' | sort -k2,2 -k3n | awk '{c[$2]++} $1=="cublas" || c[$2]<=5'
echo "total $(( $(date +%s) - s )) s"
