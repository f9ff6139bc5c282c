"""What choosing each bucket's kernel on its edges and its geometric middle (the tuner's held-out probe M) instead of
its edges alone would give, from a tune's timings (tune.csv, no GPU): per weight and for the default (all weights
together), the slowdown against the fastest candidate timed at each of the three Ms, under both choices.

usage: python3 midchoice.py TUNE.csv [TUNE.csv ...]
"""
import collections
import csv
import math
import sys

for path in sys.argv[1:]:
    t = collections.defaultdict(dict)  # (weight, M) -> {(kernel, split): us}, timings past the screen
    for r in csv.DictReader(open(path)):
        if r['check'] == 'ok' and r['graph_us'] and r['phase'] not in ('screen', 'gate', 'events'):
            t[(r['name'], int(r['M']))][(r['kernel'], int(r['split_k']))] = float(r['graph_us'])
    ms = sorted({m for _, m in t})
    lo, mid, hi = ms[0], ms[1], ms[2]
    weights = sorted({w for w, _ in t})
    slow = lambda w, c, m: t[(w, m)][c] / min(t[(w, m)].values())
    gm = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs))
    print(f'{path}: bucket [{lo}, {hi}], middle {mid}')
    tot = collections.defaultdict(list)

    def pick(ws, pts):
        cands = sorted(set.intersection(*(set(t[(w, m)]) for w in ws for m in (lo, mid, hi))))
        return min(cands, key=lambda c: max(slow(w, c, m) for w in ws for m in pts))

    for label, groups in (('own', [[w] for w in weights]), ('default', [weights])):
        for ws in groups:
            for how, pts in (('edges', (lo, hi)), ('edges+middle', (lo, mid, hi))):
                c = pick(ws, pts)
                for w in ws:
                    s = [slow(w, c, m) for m in (lo, mid, hi)]
                    tot[(label, how)] += s
                    if label == 'own':
                        print(f'  {w:18s} {how:13s} ×{s[0]:.3f} ×{s[1]:.3f} ×{s[2]:.3f}  {c[0][15:]} s{c[1]}')
    for (label, how), v in tot.items():
        print(f'  {label:8s} {how:13s} geomean ×{gm(v):.3f}, worst ×{max(v):.3f} over {len(v)} (weight, M)')
