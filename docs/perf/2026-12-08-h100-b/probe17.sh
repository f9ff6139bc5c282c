# Probe 17 (issue 17, any Hopper card; after call S in the same machine, pack .gpu-bin/n.txz from prepare.sh holds .gpu/kb17):
# the stream-K 128-row tiles across M on two untuned-looking weights, to find why call B's off-grid points fall
# (mistral-nemo o 5120x4096 at M = 1200: sk_sh_ts 128x128 109.7 µs, slower than at M = 1700, 107.3; Llama-3-8B o
# at M = 850 on sk_sh_ts 128x192: 0.69x cuBLAS). kbench times every candidate split beside cuBLAS.
# Prediction: at 5120x4096 the sk_sh_ts 128x128 time rises with M smoothly (1200 within 80 µs); if it does not,
# the pathology is the stream-K walk at 400 = 3x132+4 tiles and the table (or the walk) is the fix.
# usage: bash probe17.sh   (writes $OUT/p17.log)
set -uo pipefail
[ -x .gpu/kb17 ] || python3 -c "import glob, tarfile; [tarfile.open(f).extractall() for f in sorted(glob.glob('.gpu-bin/*.txz'))]"
timeout 150 .gpu/kb17 time 600,850,1024,1200,1449,1700 \
  "sk_sh_ts_bf16_bf16_f32_tn_128x1,sk_tp_sh_ts_bf16_bf16_f32_tn_128x1,ws_wgmma_sh_ts_bf16_bf16_f32_tn_128x128,ws_wgmma_ts_bf16_bf16_f32_tn_128x128" \
  5120x4096,4096x4096 > $OUT/p17.log 2>&1; echo "probe17 rc=$?"
tail -5 $OUT/p17.log
