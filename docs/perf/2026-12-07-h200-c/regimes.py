"""×cuBLAS by M regime (geomean and min of a bench CSV column) for Llama-3-8B, the held-out weights and N = 769.

usage: python3 regimes.py COLUMN BENCH.csv[+BENCH.csv ...] ...   (e.g. kernels_only_speedup_vs_cublas a.csv+b.csv)
"""
import csv
import sys
import math
import collections
def reg(m): return 0 if m<=16 else 1 if m<=256 else 2 if m<1024 else 3
def g(xs): return math.exp(sum(map(math.log,xs))/len(xs)) if xs else float('nan')
col=sys.argv[1]
for f in sys.argv[2:]:
    rows=[]
    for part in f.split('+'): rows+=list(csv.DictReader(open(part)))
    grp={'llama':lambda n:n.startswith('l3-8b'),'held':lambda n:n.split('.')[0] in('llama2-13b','mistral-nemo','phi3-mini','qwen2.5-7b'),'odd':lambda n:n.startswith('odd')}
    out=[]
    for gname,fn in grp.items():
        by=collections.defaultdict(list)
        for r in rows:
            if fn(r['name']) and r[col]: by[reg(int(r['M']))].append(float(r[col]))
        out.append(gname+' '+' '.join('%.3f(min %.2f,n%d)'%(g(by[i]),min(by[i]),len(by[i])) if by[i] else '--' for i in range(4)))
    print(f); print('\n'.join(out))
