# Nineteenth session, any Hopper card (name it in the report): the register epilogue's N tail, inline.
# Call 1's trace (docs/perf/2026-12-07-h200/call1) found ws_wgmma 64x96 (register epilogue) at o, M = 64 spending
# 10 µs in the epilogue of the last N tile (N = 4096 = 42·96 + 64): ws_epilogue_mn's tail called an out-of-line
# ws_store per element, which reloaded p through a generic pointer. The tail is now inline and predicated (the same
# arithmetic in the same order, so the same bits). The tail path also serves every element where D's rows are not
# 4-byte aligned (ldc odd: N = 769) — every tile of such a problem.
# Prediction (before any run): ws_wgmma 64x96 at o, M = 64: 14.2 → ≤ 5 µs at K = 512 and 24.3 → ≤ 15.5 µs at
# K = 4096 (level with its TMA-store twin ts 64x96, 4.6 / 15.1 µs on call 1's H100); at N = 769 (ldc odd),
# K = 5120, M = 256…1024 the register tiles ≥ 1.5× faster than before; where N divides by BN and ldc is even, within
# ±2 % (the common path is the same code). Correctness: kbench check (float64 reference, N = 769 with ldc 769 and
# 776, beta and bias) of every 16-bit and e4m3 ws instance, memcheck, and the engine's awkward-shape suite.
# usage: bash callE.sh   (carry .gpu-bin: old.txz has call 1's kbench — the old epilogue — and new.txz this build)
set -uo pipefail
s=$(date +%s); t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s"; }
export CUBLAS_LIB=$(find / -xdev -name 'libcublas.so.1[0-9]*' 2>/dev/null | grep -v Lt | head -1)
export GEMMROUTE_KERNEL_DIR=$PWD/kernels
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
python3 -c "import tarfile; tarfile.open('.gpu-bin/old.txz').extractall()"  # call 1's kbench (the old epilogue) as .gpu/kbench-old
python3 -c "import tarfile; tarfile.open('.gpu-bin/new.txz').extractall()"
timeout 150 .gpu/kbench check > /tmp/check16.log 2>&1; t check16 $?; tail -1 /tmp/check16.log; grep -m5 FAIL /tmp/check16.log
timeout 60 .gpu/kbench8 check > /tmp/check8.log 2>&1; t check8 $?; tail -1 /tmp/check8.log; grep -m5 FAIL /tmp/check8.log
timeout 60 compute-sanitizer --tool memcheck .gpu/kbench memcheck "" ws_wgmma_bf16_bf16_f32_tn_64x96,ws_wgmma_bf16_bf16_f32_tn_128x128,ts_bf16_bf16_f32_tn_128x256 > /tmp/memcheck.log 2>&1
t memcheck $?; tail -2 /tmp/memcheck.log
(cd dispatch && timeout 150 ../.gpu/dispatch.test -test.run 'TestEveryKernelOnAwkwardShapes|TestReductionClassesAgree|TestStreamKDeterministicAndReplayable|TestGPU$' -test.timeout 140s -test.v) > /tmp/gputest.log 2>&1
t gputest $?; grep -E '^(--- |ok|FAIL|PASS)' /tmp/gputest.log | head -12; grep -B2 -A8 -m3 -- '--- FAIL' /tmp/gputest.log | head -40
R="ws_wgmma_bf16_bf16_f32_tn_64x96,ws_wgmma_bf16_bf16_f32_tn_128x128,ws_wgmma_bf16_bf16_f32_tn_128x192,ws_wgmma_bf16_bf16_f32_tn_128x256"
K="$R,ts_bf16_bf16_f32_tn_64x96"  # the TMA-store twin where D's rows allow it (not N = 769)
for r in 1 2; do
  for b in old new; do
    k=.gpu/kbench; [ $b = old ] && k=.gpu/kbench-old
    timeout 60 $k timeall 64,128 "$K" 4096x512,4096x4096 > /tmp/o-$b$r.log 2>&1; t "o $b$r" $?
    timeout 90 $k timeall 256,512,1024 "$R" 769x5120,14336x4096 > /tmp/w-$b$r.log 2>&1; t "wide $b$r" $?
  done
done
python3 docs/perf/2026-12-07-h200/ab.py old new -new /tmp/[ow]-*.log > $OUT/tail.txt
cat $OUT/tail.txt
cp /tmp/check16.log /tmp/check8.log /tmp/gputest.log $OUT/ 2>/dev/null
echo "total $(( $(date +%s) - s )) s"
