# Call Q (issue 17, any Hopper card; ≈ 30 s): does a stream-K finisher pay for each part's partial it reads back?
# The tail model charges a part 6 k-tiles (tailPartialKTiles); NEXT-issue17.md proposes a reduce-scatter fixup
# if that cost is the finisher's serial reads. kbq (prepare.sh: sk_tp_sh_ts 128x192 with the ws_trace stamps) runs
# o (4096x4096) at M = 128: 22 tiles, all tail, split in S = 1…6 parts, so every block's first segment (the one
# the stamps record) is a part or a finisher. Point 4 is a block's main loop done, point 5 a finisher's epilogue
# issued (parts stamp no 5).
# Prediction: point 4's median falls with S (fewer k-tiles a part), and point 5's median minus point 4's rises by
# at least 1 µs a part from S = 2 to 6 (the finisher's reads, one partial after another). If it does not, the
# partial cost is elsewhere and the proposal is wrong.
# usage: bash callQ.sh   (carry .gpu-bin: n.txz from docs/perf/2026-12-08-h100-b/prepare.sh) — writes $OUT/q.log
set -uo pipefail
[ -x .gpu/kbq ] || python3 -c "import glob, tarfile; [tarfile.open(f).extractall() for f in sorted(glob.glob('.gpu-bin/*.txz'))]"
for s in 1 2 3 4 5 6; do
  timeout 30 .gpu/kbq prof 128 sk_tp_sh_ts_bf16_bf16_f32_tn_128x192 4096x4096 $s >> $OUT/q.log 2>&1; echo "S=$s rc=$?"
done
grep -E '^(prof|trace)|main loop done|epilogue issued' $OUT/q.log
