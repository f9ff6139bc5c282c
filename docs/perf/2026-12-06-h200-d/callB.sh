# Sixteenth session, H200 only: NEXT.md item 2 — splice the fifteenth session's retuned [513, 1024] buckets alone?
# buckets-L.yaml.xz is the committed table with buckets-T.yaml's (docs/perf/2026-12-06-h200-c/h200) bf16 buckets of
# 513…1024 spliced in (6 buckets changed, splice.py). Benched beside the committed table and torch.mm on the shapes
# between the edges (shapes-L.csv: M = 600, 725, 850, 1000, 1024 on Llama-3-8B's four weights and four not in the
# tune), two passes each table, alternating; then, with what is left of the budget, issue 18's f16 tune.
# Prediction (before any run): Llama-3-8B over these Ms ≥ 1.02× the committed table's (gate_up and qkv up, down
# down, as at M = 1024 in call 18 there); the weights not in the tune within ±2 %.
# usage: bash callB.sh [SECONDS]
set -uo pipefail
L=${1:-${LIMIT:-585}}; s=$(date +%s); t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s"; }
D=docs/perf/2026-12-06-h200-d; S=$D/shapes-L.csv
PYTHONUNBUFFERED=1 timeout 100 python3 .gpu/peer_cublas.py $S $OUT/peer-L.csv > /tmp/peer.log 2>&1; t peer $?; head -1 /tmp/peer.log
for i in 1 2; do
  timeout 60 .gpu/autotune bench -shapes $S -peer $OUT/peer-L.csv -csv $OUT/L-C$i.csv -table buckets.yaml > /tmp/bench.log 2>&1; t bench-C$i $?
  timeout 60 .gpu/autotune bench -shapes $S -peer $OUT/peer-L.csv -csv $OUT/L-T$i.csv -table $D/buckets-L.yaml >> /tmp/bench.log 2>&1; t bench-T$i $?
done
python3 - $OUT <<'PY'
import csv, sys, math, collections
o = sys.argv[1]; g = collections.defaultdict(list)
for tab in 'CT':
    for i in '12':
        for r in csv.DictReader(open(f'{o}/L-{tab}{i}.csv')):
            g[(r['name'], int(r['M']), tab)].append((float(r['graph_us']), float(r['cublas_graph_us']), r['kernel'].replace('gemmroute_sm90_', '')))
lg = collections.defaultdict(list)
for (n, m, tab) in sorted(k for k in g if k[2] == 'C'):
    c = g[(n, m, 'C')]; t = g[(n, m, 'T')]
    cu = sum(x[0] for x in c) / len(c); tu = sum(x[0] for x in t) / len(t); pu = sum(x[1] for x in c + t) / len(c + t)
    grp = 'llama' if n.startswith('l3-8b') else 'held-out'
    lg[grp].append(math.log(cu / tu)); lg[grp + ' xcublas C'].append(math.log(pu / cu)); lg[grp + ' xcublas T'].append(math.log(pu / tu))
    print('%-20s M=%-5d committed %7.2f  spliced %7.2f  T/C speedup x%.3f  cublas %7.2f  %s -> %s' % (n, m, cu, tu, cu / tu, pu, c[0][2][:40], t[0][2][:40]))
for k, v in lg.items(): print('%-22s geomean x%.3f over %d' % (k, math.exp(sum(v) / len(v)), len(v)))
PY
(cd $OUT && tar czf L.tgz L-C1.csv L-T1.csv L-C2.csv L-T2.csv peer-L.csv && rm L-C1.csv L-T1.csv L-C2.csv L-T2.csv peer-L.csv)  # ≤ 8 files back
left=$(( L - ($(date +%s) - s) - 10 ))
[ $left -gt 120 ] && LIMIT=$left bash docs/perf/2026-12-05-h200-c/f16-bcd.sh
echo "total $(( $(date +%s) - s )) s"
