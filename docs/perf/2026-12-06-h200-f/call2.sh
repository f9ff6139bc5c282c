# Eighteenth session, call 2: callT.sh (the fixed cost's breakdown, any Hopper card), then on the H200 the table
# work that waits (callB.sh: the [513, 1024] splice decision, then issue 18's f16 tune with what is left).
# usage: [LIMIT=SECONDS] bash docs/perf/2026-12-06-h200-f/call2.sh   (default 570); carry .gpu-bin
LIMIT=${LIMIT:-570} bash docs/perf/2026-12-06-h200-d/auto.sh docs/perf/2026-12-06-h200-f/callT.sh docs/perf/2026-12-06-h200-d/callB.sh
