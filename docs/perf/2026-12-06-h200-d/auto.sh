# Sixteenth session: every call first runs the card-agnostic kernel script KSCRIPT; where the lender gave the H200
# (the card buckets.yaml is tuned on) it then runs the table script TSCRIPT with what is left of LIMIT seconds.
# usage: [LIMIT=SECONDS] bash auto.sh KSCRIPT TSCRIPT [ARGS...]
set -uo pipefail
s=$(date +%s)
[ -f .gpu-bin/bins.txz ] && python3 -c "import tarfile; tarfile.open('.gpu-bin/bins.txz').extractall()"
tar xzf .gpu-bin/bins.tgz; export GEMMROUTE_KERNEL_DIR=$PWD/kernels
g=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "card: $g"
k=$1; shift
[ "$k" != - ] && bash "$k"
case "$g" in
  *H200*) LIMIT=$(( ${LIMIT:-585} - ($(date +%s) - s) )) bash "$@" ;;
  *) echo "not the H200: no table work" ;;
esac
