# Call S (next session, any Hopper card): ws_wgmma_swap_sq_ts (the swap tiles with one accumulator chain, in the
# class wgmma16.seq: the batch-invariant mode's small-M tiles), then the default entry's class.
# 1. kbench check + memcheck of swap_sq_ts; the engine's class and invariant tests (TestReductionClassesAgree now
#    holds the sq tiles beside ws_wgmma_ts & co.; TestBatchInvariantRows*, with the committed split-2 classes).
#    Prediction: check and memcheck clean, every class agrees (the sq tiles sum K as ws_wgmma_ts does; the
#    wave-fitted swap tiles, also one chain, agree already).
# 2. A timing of swap_sq_ts beside its nacc4 twin swap_ts and mc2n 64x64 at o and down, M = 1, 8, 16, 32, 64.
#    Prediction: sq 16x128 within 1.3× of swap_ts 16x128 at M ≤ 16, faster than mc2n 64x64 (o M = 1: 21.7 µs at
#    split-K 2 in call V).
# 3. Only if 1 is clean: callV.sh's tune -invariant over Llama-3-8B (the tuner now writes the default entry's class
#    and the experimental kernels it gated), then both modes benched. Prediction: M ≤ 16 rises from 0.78 to
#    ≥ 0.85 of the normal mode; held-out weights' invariant mode ≥ 0.75 ×cuBLAS in every regime (0.76 / 0.59 /
#    – / 0.54 in call V, the model's classes).
# usage: [LIMIT=SECONDS] bash callS.sh   (carry .gpu-bin: s.txz from prepare-s.sh, or n.txz from ../2026-12-08-h100-b/prepare.sh)
set -uo pipefail
s=$(date +%s); S=$OUT/summary.txt; L=${LIMIT:-585}
t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s" | tee -a $S; }
say() { tee -a $S; }
left() { echo $(( L - ($(date +%s) - s) )); }
python3 -c "import glob, tarfile; [tarfile.open(f).extractall() for f in sorted(glob.glob('.gpu-bin/*.txz'))]"
export GEMMROUTE_KERNEL_DIR=$PWD/kernels; mkdir -p /tmp/s
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/card.txt | say
timeout 60 .gpu/kbench check "" "swap_sq_ts" > /tmp/s/check.log 2>&1; t check $?; tail -1 /tmp/s/check.log | say
grep -E '^FAIL|mismatch|differs' /tmp/s/check.log | head -6 | say
timeout 40 compute-sanitizer --tool memcheck .gpu/kbench memcheck "" "swap_sq_ts_bf16" > /tmp/s/mem.log 2>&1; t memcheck $?; tail -1 /tmp/s/mem.log | say
(cd dispatch && timeout 200 ../.gpu/dispatch.test -test.count=1 -test.v -test.timeout 190s \
  -test.run 'TestReductionClassesAgree|TestBatchInvariant|TestEveryKernelOnAwkwardShapes' > /tmp/s/gpu.log 2>&1); t gpu $?
grep -E '^(--- FAIL|--- SKIP|ok|FAIL|PASS)' /tmp/s/gpu.log | head -20 | say
grep -E '^\s+(Error|Messages)' /tmp/s/gpu.log | head -12 | say
timeout 60 .gpu/kbench time 1,8,16,32,64 "swap_sq_ts,swap_ts_bf16_bf16_f32_tn_16x128,swap_ts_bf16_bf16_f32_tn_32x128,mc2n_bf16_bf16_f32_tn_64x64" \
  4096x4096,4096x14336 > /tmp/s/time.log 2>&1; t time $?
if grep -qE '^--- FAIL|^FAIL' /tmp/s/gpu.log || ! grep -q 'CHECK OK' /tmp/s/check.log; then
  echo "no invariant tune: step 1 not clean" | say
elif [ $(left) -gt 480 ]; then
  OUT=$OUT bash docs/perf/2026-12-07-h200-h/callV.sh > /tmp/s/callV.log 2>&1; t callV $?
fi
tar czf $OUT/s.tgz -C /tmp/s .
echo "total $(( $(date +%s) - s )) s" | say
