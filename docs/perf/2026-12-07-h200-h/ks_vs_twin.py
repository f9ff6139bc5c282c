"""ks_vs_twin.py timeks.log — ws_wgmma_ks_ts (splits summed in the kernel) beside its ts twin (the workspace
split-K and its reduce launch), from kbench timeall's per-candidate lines: for each shape and tile, ks at each
split S against the twin at the same split S (the same bits) and against the twin's best over its splits and
launch forms; the last column is ks's best against the twin's best. Ratios are twin time / ks time: above 1,
ks is faster."""
import re
import sys
from collections import defaultdict

line = re.compile(r'^\s+(\S+)\s+M=(\d+)\s+N=(\d+)\s+K=(\d+)\s+([\d.]+) us')
t = defaultdict(dict)  # (M, N, K) -> candidate -> us
for l in open(sys.argv[1]):
    m = line.match(l)
    if m:
        t[(int(m[2]), int(m[3]), int(m[4]))][m[1]] = float(m[5])
geo = []
for shape, c in sorted(t.items()):
    tiles = sorted({n.split('/')[0] for n in c if '_ks_ts_' in n})
    for ks in tiles:
        twin = ks.replace('ks_ts_', 'ts_')
        mine = {int(n.rsplit('ks', 1)[1]): us for n, us in c.items() if n.startswith(ks + '/')}
        theirs = {n: us for n, us in c.items() if n.startswith(twin + '/')}
        if not mine or not theirs:
            continue
        same = ['S=%d %.1f/%.1f=%.2f' % (s, theirs[twin + '/sk%d' % s], us, theirs[twin + '/sk%d' % s] / us)
                for s, us in sorted(mine.items()) if twin + '/sk%d' % s in theirs]
        best_ks, best_twin = min(mine.values()), min(theirs.values())
        geo.append(best_twin / best_ks)
        print('M=%-5d %6dx%-6d %-12s %s | best ks %.1f (S=%d) twin %.1f (%s): %.2f' % (
            shape[0], shape[1], shape[2], ks.split('_tn_')[1].split('x64_')[0], '  '.join(same), best_ks,
            min(mine, key=mine.get), best_twin, min(theirs, key=theirs.get).split('/', 1)[1], best_twin / best_ks))
if geo:
    g = 1.0
    for x in geo:
        g *= x
    print('geomean best twin / best ks over %d (shape, tile): %.3f' % (len(geo), g ** (1 / len(geo))))
