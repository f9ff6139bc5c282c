# Seventeenth session, one call on whatever card comes: on the H200 the table work that waits (callB.sh: the
# [513, 1024] splice decision, then issue 18's f16 tune with what is left); on any other Hopper card the kernel
# scripts (callF.sh: the mid-M K sweep; callL.sh: the lagged e4m3 promotion).
# usage: [LIMIT=SECONDS] bash docs/perf/2026-12-06-h200-e/call1.sh   (default 570)
D=docs/perf/2026-12-06-h200-d
case "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" in
  *H200*) LIMIT=${LIMIT:-570} bash $D/auto.sh - $D/callB.sh ;;
  *) timeout ${LIMIT:-570} bash $D/auto.sh docs/perf/2026-12-06-h200-e/callK.sh - ;;
esac
