# Twentieth session: the committed table's routes measured again with the inline N-tail epilogue
# (the N-tail fix of 0968bad, ws_epilogue.cuh: 160 ws_wgmma digests moved; 227 of 652 buckets name one as route or
# runner-up, in every measured sm_90 entry) AND with the committed build, on the same machine in the same call,
# group by group (autotune tune -base-routes -vendor=false). The tree's fatbins are the changed build; the committed
# build travels as .gpu-bin/oldk.txz (its sm90.fatbin and manifest.json; sm80.fatbin is byte-identical).
# `autotune compare -threshold 3 OLD NEW` then says, card for card, whether any route got slower.
# Prediction (before any run): routes whose tile leaves a column tail on N (128x192 on 4096/28672/3584/4544 rows,
# 64x96 on 4096 rows, every register tile at N = 769) 5–40 % faster; no point slower by more than 3 % beyond the
# noise (the call-2 kbench A/B had untouched tiles at 0.997–1.019).
# usage: [BASE_NEW=T BASE_OLD=T] bash callA.sh GROUP...   GROUP: bf16 | odd | e4m3    (carry .gpu-bin with r.txz and
# oldk.txz; BASE_*: the tables an earlier call wrote, to go on from)
set -uo pipefail
L=${LIMIT:-585}; s=$(date +%s); t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s"; }
python3 -c "import tarfile; [tarfile.open(f).extractall() for f in ('.gpu-bin/r.txz', '.gpu-bin/oldk.txz')]"
cp kernels/images/sm80.fatbin .old/kernels/images/
drv=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/card.txt
declare -A B=([new]=${BASE_NEW:-buckets.yaml} [old]=${BASE_OLD:-buckets.yaml}) D=([new]=$PWD/kernels [old]=$PWD/.old/kernels)
r() {  # r BUILD GROUP ARGS…: one re-measuring run on BUILD's last table
  local b=$1 g=$2; shift 2; local left=$(( L - 15 - ($(date +%s) - s) )); [ $left -lt 40 ] && { echo "no time for $g $b"; return; }
  GEMMROUTE_KERNEL_DIR=${D[$b]} timeout $left .gpu/autotune tune "$@" -base-routes -vendor=false -reps 10 -event-calls 10 \
    -base ${B[$b]} -out $OUT/$g-$b.yaml -report /tmp/rep-$g-$b -driver "$drv" > $OUT/$g-$b.log 2>&1; t "retime $g $b" $?
  cp /tmp/rep-$g-$b/tune.md $OUT/tune-$g-$b.md 2>/dev/null
  [ -s $OUT/$g-$b.yaml ] && B[$b]=$OUT/$g-$b.yaml
}
for g in "$@"; do
  case $g in
    bf16) a=(-shapes docs/perf/2026-12-02-h200-c/corpus7.csv) ;;
    odd) a=(-shapes scripts/shapes-odd.csv) ;;
    e4m3) a=(-model llama3-8b -types 'e4m3→bf16,e4m3→bf16/row,e4m3→bf16/block128,e4m3→f16') ;;
  esac
  r new $g "${a[@]}"; r old $g "${a[@]}"
  [ -s $OUT/$g-new.yaml ] && [ -s $OUT/$g-old.yaml ] && \
    GEMMROUTE_KERNEL_DIR=${D[new]} .gpu/autotune compare -threshold 3 $OUT/$g-old.yaml $OUT/$g-new.yaml > $OUT/compare-$g.txt 2>&1
  t "compare $g" $?; tail -4 $OUT/compare-$g.txt 2>/dev/null
done
# a call returns eight files at most: the tables, logs and reports travel as one tar
(cd $OUT && tar czf callA.tgz $(ls *.yaml *.log tune-*.md 2>/dev/null) && rm -f *.yaml *.log tune-*.md)
echo "total $(( $(date +%s) - s )) s"
