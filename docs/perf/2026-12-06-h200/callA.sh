# Thirteenth session, call A: the eleventh session's call3.sh again (its twelfth-session run on the H200 came back
# to a session that was cut off before it committed; the files were lost), then the per-regime geomeans of every
# CSV it wrote, printed so that the figures reach the log even if the files do not.
set -uo pipefail
LIMIT=${LIMIT:-560} bash docs/perf/2026-12-05-h200-c/call3.sh
for f in bench-N bench-C between-N between-C; do
  echo "== $f"; [ -s $OUT/$f.csv ] && python3 docs/perf/2026-12-01-h200-mc/regimes.py $OUT/$f.csv
done
tar czf $OUT/tune.tgz -C /tmp $(cd /tmp && ls tune-*.csv) 2>/dev/null  # every timing of the tune (the choices' losers too)
