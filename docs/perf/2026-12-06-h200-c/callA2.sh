# Fifteenth session, for the H200 only: the 128x224 and ping-pong TMA-store tiles (built this session) against float64 and under
# memcheck first (their logs to /tmp: callA.sh writes the eight files a call brings back), then the corpus retune of
# bf16 M = 257…2048 with its bench beside the committed table and torch.mm (../2026-12-06-h200/callA.sh), which sees
# the new tiles among its candidates (the tuner gates each candidate on correctness too). RANGES (call3.sh) narrows
# the tune, e.g. RANGES="M:257:512 L:513:1024" when the device time left is short.
set -uo pipefail
tar xzf .gpu-bin/bins.tgz; export GEMMROUTE_KERNEL_DIR=$PWD/kernels; s=$(date +%s)
timeout 60 .gpu/kbench check all 128x224,pp_ts,pp_mc2_ts > /tmp/check.log 2>&1; echo "check rc=$? $(( $(date +%s) - s )) s"
tail -1 /tmp/check.log; grep -c PASS /tmp/check.log; grep -m3 FAIL /tmp/check.log
timeout 60 compute-sanitizer --tool memcheck .gpu/kbench memcheck all 128x224,pp_ts,pp_mc2_ts > /tmp/mc.log 2>&1; echo "memcheck rc=$?"
grep -E "ERROR SUMMARY|CHECK" /tmp/mc.log | tail -2
LIMIT=$(( ${LIMIT:-560} - ($(date +%s) - s) )) bash docs/perf/2026-12-06-h200/callA.sh
