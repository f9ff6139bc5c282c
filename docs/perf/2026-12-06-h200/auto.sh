# The lender gives an H100 or an H200 for the same request. Table work (a retune, its bench) runs only on the H200,
# whose table buckets.yaml is; on any other card this runs the kernel-level work instead: callK.sh (the BM = 256
# tiles: check, memcheck, timing beside cuBLAS, ncu), then call4c.sh (o M = 64 by graph replay; per-instruction
# stalls at 4096 × 14336 × 4096). call4b.sh ran on the first H100 (h100/); callK.sh and call4c.sh on the second
# (../2026-12-06-h200-b/h100/), so from then on it runs ../2026-12-06-h200-b/callK2.sh.
# usage: bash auto.sh H200-SCRIPT [ARGS...]
set -uo pipefail
g=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "card: $g"
case "$g" in
  *H200*) bash "$@" ;;
  *) bash docs/perf/2026-12-06-h200-b/callK2.sh ;;
esac
