# Seventeenth session, the kernel scripts for a card other than the H200: callF.sh (mid-M K sweep) then callL.sh
# (lagged e4m3 promotion); each writes its own logs to $OUT.
bash docs/perf/2026-12-06-h200-d/callF.sh
bash docs/perf/2026-12-06-h200-e/callL.sh
