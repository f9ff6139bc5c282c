# Thirteenth session, kernel-level work for a card that is not the H200, after call4b.sh (h100/): (1) o M = 64 by
# kbench's graph replay beside cuBLAS — under ncu (one cold launch) cuBLAS, ts 64x96 and swap_mc2_ts 32x64 ran
# 17.4 / 17.7 / 18.4 µs on the H100, while the H200's graph replay has cuBLAS 11.0 against our 13.4: does the gap show
# on the H100 when timed as the bench times it? (2) 4096 × 14336 × 4096, persistent 128x256 (tensor pipe 79 %) against
# cuBLAS (93 %): where the consumers stall, per SASS instruction (ncu source page, sampled stall reasons).
set -uo pipefail
tar xzf .gpu-bin/bins.tgz; export GEMMROUTE_KERNEL_DIR=$PWD/kernels; s=$(date +%s)
export CUBLAS_LIB=$(find / -xdev -name 'libcublas.so.1[0-9]*' 2>/dev/null | grep -v Lt | head -1)
timeout 120 .gpu/kbench timeall 64,65,128 ws_wgmma_ts_bf16_bf16_f32_tn_64x96x64,swap_mc2_ts_bf16_bf16_f32_tn_32x64x64,ws_wgmma_swap_ts_bf16_bf16_f32_tn_32x64x64 4096x4096 > $OUT/time-o64.log 2>&1
echo "timeall rc=$? $(( $(date +%s) - s )) s"; grep -vE "^\s*$" $OUT/time-o64.log | head -30
for p in "ws_wgmma_bf16_bf16_f32_tn_128x256x64 1 pers" "cublas 1"; do
  set -- $p
  timeout 90 ncu --clock-control none --section SourceCounters --section WarpStateStats --page source --print-source sass --csv \
    --kernel-name regex:"${1/cublas/nvjet|xmma|cutlass}" --launch-skip 2 --launch-count 1 .gpu/kbench prof 4096 $1 14336x4096 $2 ${3:-} \
    > /tmp/src.csv 2> /tmp/src.err; echo "ncu-src $1 rc=$? $(( $(date +%s) - s )) s $(wc -l < /tmp/src.csv) lines"; tail -2 /tmp/src.err
  gzip -c /tmp/src.csv > $OUT/src-$( [ $1 = cublas ] && echo cublas || echo 128x256 ).csv.gz
done
echo "total $(( $(date +%s) - s )) s"
