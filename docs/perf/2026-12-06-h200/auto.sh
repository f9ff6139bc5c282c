# The lender gives an H100 or an H200 for the same request. Table work (a retune, its bench) runs only on the H200,
# whose table buckets.yaml is; on any other card this runs card-agnostic work instead. It ran call4b.sh on the first
# H100 (h100/), callK.sh and call4c.sh on the second (../2026-12-06-h200-b/h100/), callK2.sh on the third
# (../2026-12-06-h200-b/h100-2/), callG.sh on the fourth (h100-3/); callE.sh on the fifth (h100-4/), callG2.sh on the sixth (h100-5/). On another
# card it ran ../2026-12-06-h200-c/callH.sh (fifteenth session, first H100: h100/) callH2.sh on the second (h100-2/) callH3.sh on the third (h100-3/) callH4.sh on the fourth (h100-4/) callH5.sh on the fifth (h100-5/) callH6.sh on the sixth (h100-6/) callG3.sh on the seventh (h100-7/), nothing on the eighth to tenth, and now runs
# callH7.sh; give it the next kernel-level script (docs/perf/NEXT.md) when that has run.
# usage: bash auto.sh H200-SCRIPT [ARGS...]
set -uo pipefail
# The binaries travel xz-compressed (.gpu-bin/bins.txz, 12 MB against gzip's 22: the carry and the tree must fit
# 64 MiB); the scripts' own `tar xzf .gpu-bin/bins.tgz` then unpacks the shape lists and the peer script only.
[ -f .gpu-bin/bins.txz ] && python3 -c "import tarfile; tarfile.open('.gpu-bin/bins.txz').extractall()"
g=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "card: $g"
case "$g" in
  *H200*) bash "$@" ;;
  *) echo "not the H200: running callH7.sh"; bash docs/perf/2026-12-06-h200-c/callH7.sh ;;
esac
