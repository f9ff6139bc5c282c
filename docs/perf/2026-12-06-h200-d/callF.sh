# Sixteenth session, any Hopper card (name it in the report): the mid-M gap split into a fixed cost and a rate.
# At o (4096 rows), M = 64, cuBLAS leads our best tiles by 6 % (H100, call 1) to 18 % (H200 table bench) in graph
# replay. Time the same tiles and cuBLAS at M = 64 over K = 512…8192 on 4096 rows: the fit t = a + b·K splits each
# time into a fixed cost a (launch, prologue, pipeline fill, epilogue, the split-K reduce) and a streaming rate b.
# Prediction (before any run): our intercepts exceed cuBLAS's by ≥ 1 µs, the slopes within 5 % of cuBLAS's.
# kbench as built from bfbfef2 (its edge counts print beside each time; KB_PDL unset: ordinary launches).
set -uo pipefail
s=$(date +%s); t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s"; }
export CUBLAS_LIB=$(find / -xdev -name 'libcublas.so.1[0-9]*' 2>/dev/null | grep -v Lt | head -1)
F="ts_bf16_bf16_f32_tn_64x96,swap_ts_bf16_bf16_f32_tn_32x128x128,swap_mc2_ts_bf16_bf16_f32_tn_32x64,swap_sk_ts_bf16_bf16_f32_tn_32x128x64"
W=4096x512,4096x1024,4096x2048,4096x4096,4096x8192
timeout 150 .gpu/kbench timeall 64 "$F" $W > $OUT/ksweep.log 2>&1; t ksweep $?
python3 - $OUT/ksweep.log <<'PY'
import re, sys, collections
d = collections.defaultdict(dict)
for l in open(sys.argv[1]):
    m = re.match(r'\s+(\S+)\s+M=\d+\s+N=\d+\s+K=(\d+)\s+([\d.]+) us', l)
    if m: d[m[1]].setdefault(int(m[2]), []).append(float(m[3]))
def fit(p):
    ks = sorted(p); xs = ks; ys = [sum(p[k]) / len(p[k]) for k in ks]
    n = len(xs); mx = sum(xs) / n; my = sum(ys) / n
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    return my - b * mx, b, ys
for name, p in sorted(d.items(), key=lambda kv: fit(kv[1])[0]):
    a, b, ys = fit(p)
    print('%-62s a=%6.2f us  b=%7.3f us/1k K  %s' % (name[:62], a, 1000 * b, ' '.join('%.2f' % y for y in ys)))
PY
echo "total $(( $(date +%s) - s )) s"
