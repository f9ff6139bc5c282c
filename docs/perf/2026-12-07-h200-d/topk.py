"""Leave one weight out of call T's tune (callT/c.tgz: rhi/tune.csv, H100, corpus7, M = 257…2048, no GPU): how close the
best of the corpus's top k candidates for a bucket (ranked by their worst slowdown over the other six weights, at the
bucket's edges and middles) comes to the left-out weight's own choice — the bound on any policy that picks among a
default bucket's top k for a weight the table does not hold. Each figure: the left-out weight's worst slowdown over the
bucket's Ms against its fastest candidate, geomean and worst over weights × buckets.

usage: tar xzf docs/perf/2026-12-07-h200-d/callT/c.tgz -C /tmp/cT && python3 topk.py   (reads /tmp/cT/rhi/tune.csv)
"""
import sys, math, collections
sys.argv=['loo', '/tmp/cT/rhi/tune.csv', '257-512', '513-1024', '1025-2048']
src=open('/work/main/docs/perf/2026-12-07-h200-c/loo.py').read()
src=src[:src.index('geo = collections.defaultdict(list)')]
exec(src)
res=collections.defaultdict(list)
for lo,hi in spans:
    ms_=sorted({m for (w,m) in t if lo<=m<=hi})
    edges=[m for m in ms_ if all((w,m) in t for w in weights)]
    for w in weights:
        others=[o for o in weights if o!=w]
        cands=set.intersection(*(full[(o,m)] for o in others for m in edges))
        ranked=sorted(cands,key=lambda c:max(slow(o,c,edges) for o in others))
        own=slow(w,choose([w],edges),edges)
        for k in (1,2,3,5):
            best=min(slow(w,c,edges) for c in ranked[:k])
            if math.isfinite(best): res[k].append(best)
        res['own'].append(own)
    print(lo,hi,edges)
for k,v in res.items(): print(k, 'geomean x%.3f'%gmean(v), 'worst x%.2f'%max(v), len(v))
