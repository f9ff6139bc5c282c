#!/usr/bin/env bash
# Call 3: the whole GPU test suite on main as it lands (the planner's cache fix included), the README's quick start and the longer client.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; start=$(date +%s)
export GEMMROUTE_KERNEL_DIR=$PWD/kernels
(cd dispatch && timeout 240 ../.gpu/dispatch.test -test.v) > "$OUT/gputest3.log" 2>&1; echo "tests rc=$? $(( $(date +%s) - start )) s"
grep -E '^--- FAIL|^(ok|FAIL|PASS)$|checked' "$OUT/gputest3.log" | head -20; grep -c '^--- PASS' "$OUT/gputest3.log"
timeout 60 .gpu/quickstart > "$OUT/quickstart.log" 2>&1; echo "quickstart rc=$?"; cat "$OUT/quickstart.log" | head -12; tail -1 "$OUT/quickstart.log"
timeout 90 .gpu/linear > "$OUT/linear3.log" 2>&1; echo "linear rc=$?"; tail -1 "$OUT/linear3.log"
echo "total $(( $(date +%s) - start )) s"
