"""Two bench CSVs of one call, side by side: per (name, M) each table's kernel and graph µs, their ratio (B/A: > 1
means A is faster), and the geomean of the ratio per group and M regime.

usage: python3 cmp.py A.csv B.csv [NAME_SUBSTRING] [MIN_RATIO_DIFF]"""
import csv, math, sys, collections
a = {(r['name'], int(r['M'])): r for r in csv.DictReader(open(sys.argv[1]))}
b = {(r['name'], int(r['M'])): r for r in csv.DictReader(open(sys.argv[2]))}
sub = sys.argv[3] if len(sys.argv) > 3 else ''
thr = float(sys.argv[4]) if len(sys.argv) > 4 else 0.0
def reg(m): return 0 if m <= 16 else 1 if m <= 256 else 2 if m < 1024 else 3
def grp(n): return 'llama' if n.startswith('l3-8b') else 'odd' if n.startswith('odd') else 'held'
def short(k): return k.replace('gemmroute_sm90_', '').replace('_bf16_bf16_f32_tn', '').replace('_f16_f16_f32_tn', '')
by = collections.defaultdict(list)
for k in sorted(a, key=lambda k: (k[0], k[1])):
    if k not in b or sub not in k[0]: continue
    ra, rb = a[k], b[k]
    r = float(rb['graph_us']) / float(ra['graph_us'])
    by[(grp(k[0]), reg(k[1]))].append(r)
    if abs(r - 1) >= thr and (ra['kernel'] != rb['kernel'] or thr > 0):
        print('%-26s %5d %-52s %9s  %-52s %9s  %.3f' % (k[0], k[1], short(ra['kernel']), ra['graph_us'], short(rb['kernel']), rb['graph_us'], r))
for g in ('llama', 'held', 'odd'):
    print(g, ' '.join('%.3f(n%d)' % (math.exp(sum(map(math.log, by[(g, i)])) / len(by[(g, i)])), len(by[(g, i)])) if by[(g, i)] else '--' for i in range(4)))
