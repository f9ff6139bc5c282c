# Call B (next session; H200 if one comes, else H100): the README bench of the committed table beside torch.mm, and
# of the table before call I's splice (a346bb3's, .gpu/buckets-before.yaml) in the same call: the shapes at powers of
# two (Llama-3-8B and the held-out weights), the 64 between powers of two and the 72 off-grid shapes. Settles the
# splice (call I compared with an earlier run's times only), above all Llama-3-8B gate_up at [2049, 4096], which
# it moved from ex_ts 128x128 to rn_ts 128x256 (768 / 1457 µs in call I against the committed 710 / 1333).
# Prediction: the two tables within 1 % by regime; gate_up at M = 4096 within 3 % either way.
# usage: [LIMIT=SECONDS] bash callB.sh   (carry .gpu-bin: b.txz = stripped .gpu/autotune and .gpu/buckets-before.yaml:
#   go build -ldflags='-s -w' -o .gpu/autotune ./autotune && git show a346bb3:buckets.yaml > .gpu/buckets-before.yaml
#   && XZ_OPT=-9 tar cJf .gpu-bin/b.txz .gpu/autotune .gpu/buckets-before.yaml)
# then: python3 docs/perf/2026-12-07-h200-c/regimes.py speedup_vs_cublas callB/bench-shapes-committed.csv ...
set -uo pipefail
s=$(date +%s); L=${LIMIT:-580}; t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s"; }; left() { echo $(( L - ($(date +%s) - s) )); }
python3 -c "import tarfile; tarfile.open('.gpu-bin/b.txz').extractall()"
export GEMMROUTE_KERNEL_DIR=$PWD/kernels; mkdir -p /tmp/b
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/card.txt
for S in docs/perf/2026-12-01-h200-mc/bench-shapes.csv scripts/shapes-between.csv scripts/shapes-offgrid.csv; do
  n=$(basename $S .csv); [ $(left) -lt 60 ] && { echo "no time for $n"; continue; }
  PYTHONUNBUFFERED=1 timeout 60 python3 scripts/peer_cublas.py $S /tmp/b/peer-$n.csv > /tmp/b/peer-$n.log 2>&1; t "peer $n" $?
  for tb in committed:buckets.yaml before:.gpu/buckets-before.yaml; do
    timeout 80 .gpu/autotune bench -shapes $S -peer /tmp/b/peer-$n.csv -csv /tmp/b/$n-${tb%%:*}.csv -table ${tb#*:} \
      > /tmp/b/b-$n-${tb%%:*}.log 2>&1; t "bench $n ${tb%%:*}" $?
  done
done
tar czf $OUT/b.tgz -C /tmp/b .
python3 docs/perf/2026-12-07-h200-c/regimes.py speedup_vs_cublas /tmp/b/bench-shapes-committed.csv /tmp/b/bench-shapes-before.csv 2>&1 | tee $OUT/regimes.txt
echo "total $(( $(date +%s) - s )) s"
