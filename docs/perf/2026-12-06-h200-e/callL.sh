# Seventeenth session, any Hopper card (name it in the report): issue 20 item 1's lagged promotion
# (ws_wgmma_lp_ts, ws_wgmma_swap_lp_ts: REL = gr::ws_promote_lagged, experimental, never run) against float64 and
# under memcheck, then timed beside its twins (the same tiles promoting each k-tile before the next) by graph replay.
# Prediction (before any run): check and memcheck pass; at M = 4096 on gate_up (28672 x 4096) and down (4096 x 14336)
# lp_ts 128x128 is ≥ 5 % faster than ts 128x128 (the tensor cores no longer wait for each promotion); at M = 32 the
# swap_lp tiles within ±3 % of swap_ts (weight streaming, not the promotion, bounds them).
set -uo pipefail
s=$(date +%s); t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
F="lp_ts,ws_wgmma_ts_e4m3_bf16_f32_tn_128x128,swap_ts_e4m3_bf16_f32_tn_16x128,swap_ts_e4m3_bf16_f32_tn_32x128"
timeout 90 .gpu/kbench8 check "" "$F" > $OUT/lp-check.log 2>&1; t check $?; tail -1 $OUT/lp-check.log
timeout 90 compute-sanitizer --tool memcheck .gpu/kbench8 memcheck "" lp_ts > /tmp/lp-memcheck.log 2>&1; t memcheck $?; tail -2 /tmp/lp-memcheck.log
for i in 1 2; do
  timeout 100 .gpu/kbench8 timeall 32,64,1024,4096 "$F" 6144x4096,28672x4096,4096x14336 > $OUT/lp-time$i.log 2>&1; t time$i $?
done
python3 - $OUT/lp-time1.log $OUT/lp-time2.log <<'PY'
import re, sys, collections
d = collections.defaultdict(list)
for f in sys.argv[1:]:
    for l in open(f):
        m = re.match(r'\s+(\S+)\s+sk(\d+)(\S*)\s+M=(\d+)\s+N=(\d+)\s+K=(\d+)\s+([\d.]+) us', l)
        if m: d[(m[1], m[2] + m[3], int(m[4]), int(m[5]), int(m[6]))].append(float(m[7]))
best = {}  # per kernel and shape: the best split's mean over the passes
for (name, split, M, N, K), v in d.items():
    key = (name, M, N, K)
    best[key] = min(best.get(key, 1e9), sum(v) / len(v))
for (name, M, N, K), us in sorted(best.items()):
    if '_lp_' not in name: continue
    twin = name.replace('_lp_', '_')
    tw = best.get((twin, M, N, K))
    print('%-58s M=%-5d %5dx%-5d lp %8.2f us  twin %8.2f  twin/lp x%.3f' % (name[:58], M, N, K, us, tw or 0, (tw or 0) / us))
PY
echo "total $(( $(date +%s) - s )) s"
