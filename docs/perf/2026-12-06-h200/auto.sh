# Thirteenth session: the lender gives an H100 or an H200 for the same request. Table work (a retune, its bench) runs
# only on the H200, whose table buckets.yaml is; on any other card this runs kernel-level work instead.
# usage: bash auto.sh H200-SCRIPT [ARGS...]   (on another card: call4c.sh; call4b.sh ran first)
set -uo pipefail
g=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "card: $g"
case "$g" in
  *H200*) bash "$@" ;;
  *) bash docs/perf/2026-12-06-h200/call4c.sh ;;
esac
