"""Octave against half-octave buckets on call T's timings (docs/perf/2026-12-07-h200-d/callT/c.tgz: rhi/tune.csv,
H100, the corpus's seven weights at M = 257…2048, no GPU). Each weight's own choice (and, left out, the default's
over the other six) for an octave bucket is made on its edges and geometric middle (the tuner before d050d61); for
the two half octaves on their edges (the middle of the octave is an edge of both). Each figure is the chosen
kernel's time over the fastest candidate's at that M (geomean and worst over weights × Ms), at the Ms chosen on
("edge") and at the held-out Ms inside the upper halves ("probe": 431, 861, 1723). Then the Llama-3-8B shapes of
call T's bench: the bench's ×cuBLAS scaled by the half-octave choice's tune time over the committed route's.

usage: mkdir -p /tmp/cT && tar xzf docs/perf/2026-12-07-h200-d/callT/c.tgz -C /tmp/cT && python3 half.py
"""
import collections
import csv
import math
import sys

sys.argv = ['loo', '/tmp/cT/rhi/tune.csv']
src = open('docs/perf/2026-12-07-h200-c/loo.py').read()
exec(src[:src.index('geo = collections.defaultdict(list)')])  # t, full, shape, weights, choose, gmean


def at(w, c, m):
    return t[(w, m)].get(c, math.inf) / min(t[(w, m)][f] for f in full[(w, m)])


octs = [(257, 512), (513, 1024), (1025, 2048)]
pts = {o: sorted({m for (_, m) in t if o[0] <= m <= o[1]}) for o in octs}
res = collections.defaultdict(list)
picks = {}
for lo, hi in octs:
    P = pts[(lo, hi)]
    mid = [m for m in P if m not in (lo, hi)][0]
    for w in weights:
        for who, ws in (('own', [w]), ('default', [o for o in weights if o != w])):
            c_oct = choose(ws, [lo, mid, hi])
            c_lo, c_hi = choose(ws, [lo, mid]), choose(ws, [mid, hi])
            if who == 'own':
                picks[(w, lo)] = (c_lo, c_hi, mid)
            for m in P:
                o, h = at(w, c_oct, m), at(w, c_lo if m < mid else c_hi, m)
                if math.isfinite(o) and math.isfinite(h):
                    tag = 'edge' if m in (lo, mid, hi) else 'probe'
                    res[(who, tag, 'octave')].append(o)
                    res[(who, tag, 'half')].append(h)
for k, v in sorted(res.items()):
    print('%-8s %-5s %-6s geomean ×%.3f worst ×%.2f (n %d)' % (*k, gmean(v), max(v), len(v)))

bench = {}
for f in ('/tmp/cT/bench-shapes-tuned.csv', '/tmp/cT/shapes-between-tuned.csv'):
    for r in csv.DictReader(open(f)):
        bench[(int(r['M']), int(r['N']), int(r['K']))] = (float(r['graph_us']), float(r['cublas_graph_us']), (r['kernel'], int(r['split_k'])))
reg = collections.defaultdict(lambda: ([], []))
for w in weights:
    if not w.startswith('llama3-8b'):
        continue
    n, k = shape[w]
    for lo, hi in octs:
        c_lo, c_hi, mid = picks[(w, lo)]
        for m in pts[(lo, hi)]:
            if (m, n, k) not in bench:
                continue
            ours, cub, route = bench[(m, n, k)]
            c = c_lo if m < mid else c_hi
            if route not in t[(w, m)]:
                continue
            r = t[(w, m)][c] / t[(w, m)][route]
            g = '257-1023' if m < 1024 else '1024-2048'
            reg[g][0].append(cub / ours)
            reg[g][1].append(cub / (ours * r))
            print('%-16s M=%5d ×cuBLAS %.2f → %.2f  %s' % (w, m, cub / ours, cub / (ours * r), c[0].replace('gemmroute_sm90_', '')))
for g, (a, b) in reg.items():
    print('Llama-3-8B %s: ×cuBLAS %.3f → %.3f (estimate)' % (g, gmean(a), gmean(b)))
