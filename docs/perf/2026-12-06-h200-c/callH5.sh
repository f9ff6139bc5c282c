# Fifteenth session, call 5 on a card that is not the H200 (name it in the report): is our M = 1024 gap a cost a
# launch or tile pays once, or a slower main loop? Graph replay over K = 1024…8192 on 14336 rows at M = 1024 and 4096,
# our best tiles of calls 1–4 beside cuBLAS, and a least-squares line t = a + b·K for each (a: what a launch pays
# whatever K, b: the main loop's µs per 1024 of K).
# Prediction (before any run): at M = 1024 our best kernel's b within 5 % of cuBLAS's, its a ≥ 10 µs above
# cuBLAS's (call 3: ≈ 16 k cycles of tensor-idle time a launch beside ≈ 3 k a tile).
set -uo pipefail
tar xzf .gpu-bin/bins.tgz; export GEMMROUTE_KERNEL_DIR=$PWD/kernels; s=$(date +%s)
export CUBLAS_LIB=$(find / -xdev -name 'libcublas.so.1[0-9]*' 2>/dev/null | grep -v Lt | head -1)
t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
K="ws_wgmma_rn_ts_bf16_bf16_f32_tn_128x224x64,ws_wgmma_rn_ts_bf16_bf16_f32_tn_128x256x64,ws_wgmma_sk_ts_bf16_bf16_f32_tn_128x256x64,rn_mc2n_ts_bf16_bf16_f32_tn_256x160x64,pp_mc2_bf16_bf16_f32_tn_128x128"
timeout 300 .gpu/kbench timeall 1024,4096 $K 14336x1024,14336x2048,14336x4096,14336x8192 > $OUT/time.log 2>&1; t timeall $?
grep -E "^   (cublas|.*/sk1) " $OUT/time.log | python3 -c "
import sys, collections
d = collections.defaultdict(list)
for l in sys.stdin:
    f = l.split(); m = int(f[1][2:]); k = int(f[3][2:]); d[(f[0].replace('ws_wgmma_', '').replace('_bf16_bf16_f32_tn_', '.').replace('/sk1', ''), m)].append((k, float(f[4])))
for (name, m), v in sorted(d.items(), key=lambda x: (x[0][1], x[0][0])):
    v.sort(); n = len(v); sx = sum(k for k, _ in v) / n; sy = sum(t for _, t in v) / n
    b = sum((k - sx) * (t - sy) for k, t in v) / max(sum((k - sx) ** 2 for k, _ in v), 1)
    print('M=%d %-48s a=%7.1f us  b=%6.2f us/1024K  ' % (m, name, sy - b * sx, b * 1024) + ' '.join('%d:%.1f' % kv for kv in v))
"
echo "total $(( $(date +%s) - s )) s"
