"""Leave one weight out of a tune's timings (tune.csv, no GPU): what the default entry chosen over the others costs
it, against what the buckets of its nearest measured weight (the planner's LevelNearest rule: least distance in
(ln N, ln K), N and K each within a factor of two, the same alignment classes) cost it. A cost is the worst slowdown
over the bucket's edges against the fastest candidate timed past the screen for the weight (choices are made among
those; a borrowed candidate the weight's screen dropped costs its screen timing).

usage: python3 loo.py TUNE.csv [LO-HI ...]   (buckets, e.g. 17-32 33-64; default: the powers of two in the file)
"""
import collections
import csv
import math
import sys

t = collections.defaultdict(dict)  # (weight, M) -> {(kernel, split): us}
full = collections.defaultdict(set)  # (weight, M) -> candidates timed beyond the screen
shape = {}
for r in csv.DictReader(open(sys.argv[1])):
    if r['check'] != 'ok' or not r['graph_us']:
        continue
    w, m, c = r['name'], int(r['M']), (r['kernel'], int(r['split_k']))
    shape[w] = (int(r['N']), int(r['K']))
    us = float(r['graph_us'])
    if r['phase'] != 'screen' or c not in t[(w, m)]:  # a full timing replaces the screen's
        t[(w, m)][c] = us
    if r['phase'] != 'screen':
        full[(w, m)].add(c)
ms = sorted({m for _, m in t})
spans = [tuple(map(int, a.split('-'))) for a in sys.argv[2:]] or [(lo, 2 * (lo - 1)) for lo in ms if lo > 2 and (lo - 1) & (lo - 2) == 0 and 2 * (lo - 1) in ms]
weights = sorted(shape)


def slow(w, c, edges):  # worst slowdown of candidate c on weight w over the edges (inf: not timed)
    return max(t[(w, m)].get(c, math.inf) / min(t[(w, m)][f] for f in full[(w, m)]) for m in edges)


def choose(ws, edges, agg=max):
    cands = set.intersection(*(full[(w, m)] for w in ws for m in edges))
    return min(sorted(cands), key=lambda c: agg(slow(w, c, edges) for w in ws))


def gmean(xs):
    xs = list(xs)
    return math.exp(sum(map(math.log, xs)) / len(xs))


def cls(x):
    return min(16, x & -x)


def nearest(w, others):
    n, k = shape[w]
    best, bd = None, math.inf
    for o in others:
        on, ok = shape[o]
        rn, rk = n / on, k / ok
        if cls(n) != cls(on) or cls(k) != cls(ok) or not (0.5 <= rn <= 2 and 0.5 <= rk <= 2):
            continue
        d = math.hypot(math.log(rn), math.log(rk))
        if d < bd:
            best, bd = o, d
    return best


geo = collections.defaultdict(list)
for lo, hi in spans:
    edges = [m for m in (lo, hi) if all((w, m) in t for w in weights)]
    print(f'bucket [{lo}, {hi}], edges {edges}')
    for w in weights:
        others = [o for o in weights if o != w]
        d = slow(w, choose(others, edges), edges)
        o = nearest(w, others)
        nr = slow(w, choose([o], edges), edges) if o else d
        own = slow(w, choose([w], edges), edges)
        dg = slow(w, choose(others, edges, gmean), edges)
        if math.isfinite(nr):  # a borrowed candidate the weight never timed (pruned by the model) says nothing
            geo['own choice'].append(own)
            geo['default'].append(d)
            geo['nearest'].append(nr)
            geo['default by geomean'].append(dg)
        print(f'  {w:18s} own ×{own:.3f}   default left out ×{d:.3f} (by geomean ×{dg:.3f})   nearest {o or "(none: default)":18s} ×{nr:.3f}')
for k, v in geo.items():
    print(f'{k}: geomean ×{math.exp(sum(map(math.log, v)) / len(v)):.3f}, worst ×{max(v):.3f} over {len(v)} weight-buckets')
