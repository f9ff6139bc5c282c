# Twenty-fourth session, call T (any card): kbench check of ws_wgmma_sk_tp_sh_ts with the flag bound, then the
# corpus's seven weights tuned at M = 257…2048 (octave buckets) with the sk_tp kernels admitted as candidates
# (dispatch's fitted tail model picks their split), our kernels only, into the committed table; then the README's
# shapes, the 64 between powers of two and the 72 off-grid ones benched beside torch.mm with the tuned table and the
# committed one (docs/perf/2026-12-07-h200-e/callH.sh does the tune and the benches).
# Prediction (before the run): check passes at every shape and split; the tune routes sk_tp in at least a quarter of
# the corpus's [257, 512], [513, 1024], [1025, 2048] entries and in the default entry of at least one of them;
# ×cuBLAS, tuned against committed table: Llama-3-8B 257–1023 0.95 → ≥ 0.96, ≥ 1024 0.94 → ≥ 0.95; held out
# 257–1023 0.83 → ≥ 0.86 (mistral-nemo o M = 600: ×0.42 → ≥ ×0.70); M ≤ 256 unchanged (±2 %).
# usage: bash callT.sh   (carry .gpu-bin: r.txz from this commit)
set -uo pipefail
python3 -c "import tarfile; tarfile.open('.gpu-bin/r.txz').extractall()"
export GEMMROUTE_KERNEL_DIR=$PWD/kernels
timeout 40 .gpu/kbench check "" sk_tp_sh_ts > /tmp/check.log 2>&1; echo "check rc=$?"; tail -1 /tmp/check.log
{ grep -E '^FAIL' /tmp/check.log | head -20; grep -c '^PASS' /tmp/check.log; tail -1 /tmp/check.log; } > $OUT/check.txt
LIMIT=${LIMIT:-545} LO=257 HI=2048 bash docs/perf/2026-12-07-h200-e/callH.sh
