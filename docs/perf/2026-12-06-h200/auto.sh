# The lender gives an H100 or an H200 for the same request. Table work (a retune, its bench) runs only on the H200,
# whose table buckets.yaml is; on any other card this runs card-agnostic work instead. Fourteenth session: call4b.sh
# on the first H100 (h100/), callK.sh and call4c.sh on the second (../2026-12-06-h200-b/h100/), callK2.sh on the
# third (../2026-12-06-h200-b/h100-2/), callG.sh on the fourth (h100-3/), callE.sh on the fifth (h100-4/), callG2.sh
# on the sixth (h100-5/). Fifteenth (../2026-12-06-h200-c/): callH.sh … callH6.sh and callG3.sh on its first seven
# H100s (h100/ … h100-7/), nothing on the eighth to tenth, callH7.sh on the eleventh (h100-11/), nothing on the
# twelfth and thirteenth, callN.sh on the fourteenth (h100-14/), nothing on the fifteenth and sixteenth, callE8.sh on
# the seventeenth (h100-17/). For the sixteenth session's first other card: callH7.sh again, with kbench now timing
# cuBLAS before and after each shape's candidates (prediction: a shape's two cuBLAS figures within 3 %, the four
# passes' means within 3 %, our best 0.90–0.98× on 14336 rows); then give it the next kernel-level script (NEXT.md).
# usage: bash auto.sh H200-SCRIPT [ARGS...]
set -uo pipefail
# The binaries travel xz-compressed (.gpu-bin/bins.txz, 12 MB against gzip's 22: the carry and the tree must fit
# 64 MiB); the scripts' own `tar xzf .gpu-bin/bins.tgz` then unpacks the shape lists and the peer script only.
[ -f .gpu-bin/bins.txz ] && python3 -c "import tarfile; tarfile.open('.gpu-bin/bins.txz').extractall()"
g=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "card: $g"
case "$g" in
  *H200*) bash "$@" ;;
  *) echo "not the H200: callH7.sh with the kbench that times cuBLAS before and after each shape"
     bash docs/perf/2026-12-06-h200-c/callH7.sh; grep -h "^   cublas" $OUT/time-*.log ;;
esac
