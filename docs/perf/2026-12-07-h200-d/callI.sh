# Twenty-second session, call I (any card): issue 21 on the current kernels and table. The batch-invariant mode's two
# GPU tests (TestReductionClassesAgree: kernels of one class give the same bits; TestBatchInvariantRows: every row
# bit-identical to the row alone in batches of M = 1…4096, on another stream and in graph replays), then its cost:
# the README's shapes benched in the normal mode and in the batch-invariant mode (Options.BatchInvariant) beside
# torch.mm, same table, same call. The table records no reduction class yet, so the mode runs the analytic model's
# class per weight (the same for every M), chosen over M = 1…4096.
# Prediction (before the run): both tests pass (they passed on the H200 on 2026-12-02; kernels admitted since are
# classed by the same generator rules); the model's class costs most at one end of M — the ≤ 16 regime or the
# ≥ 1024 one below 0.80× of the normal mode for Llama-3-8B — and the middle regimes stay ≥ 0.85×.
# usage: bash callI.sh   (carry .gpu-bin: r.txz holds .gpu/ with dispatch.test, autotune, peer_cublas.py)
set -uo pipefail
s=$(date +%s); t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s"; }
python3 -c "import tarfile; tarfile.open('.gpu-bin/r.txz').extractall()"
export GEMMROUTE_KERNEL_DIR=$PWD/kernels; S=docs/perf/2026-12-01-h200-mc/bench-shapes.csv
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/card.txt
(cd dispatch && timeout 200 ../.gpu/dispatch.test -test.v -test.count=1 -test.run '^(TestReductionClassesAgree|TestBatchInvariantRows)$' \
  > /tmp/inv-test.log 2>&1); t invariant-tests $?
grep -E '^(--- |ok|FAIL|PASS)|Error' /tmp/inv-test.log | head -60 > $OUT/inv-test.txt; tail -2 /tmp/inv-test.log
PYTHONUNBUFFERED=1 timeout 70 python3 .gpu/peer_cublas.py $S /tmp/peer.csv > /tmp/peer.log 2>&1; t peer $?
timeout 90 .gpu/autotune bench -shapes $S -peer /tmp/peer.csv -csv /tmp/normal.csv > /tmp/b-normal.log 2>&1; t normal $?
timeout 120 .gpu/autotune bench -invariant -shapes $S -peer /tmp/peer.csv -csv /tmp/invariant.csv > /tmp/b-inv.log 2>&1; t invariant $?
tar czf $OUT/i.tgz -C /tmp inv-test.log peer.csv peer.log normal.csv invariant.csv b-normal.log b-inv.log
echo "total $(( $(date +%s) - s )) s"
