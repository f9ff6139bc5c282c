"""Simulate a 'nearest measured weight' fallback without touching the router: for every weight of the shape lists
that has no exact entry of its own (sm_90, bf16, tn), copy the buckets of the measured entry nearest to it in
(ln N, ln K) — the weights of the TMA kernels' families only (the N = 769 repack entry is no source) — as that
weight's exact entry. A bench of the result beside TABLE says what such a fallback would give the held-out weights.

usage: python3 nearest.py TABLE OUT SHAPES.csv [SHAPES.csv ...]
"""
import copy
import csv
import math
import sys

import yaml

table = yaml.safe_load(open(sys.argv[1]))
ours = lambda e: e['arch'] == 'sm_90' and e['types'] == 'bf16' and e['layout'] == 'tn'
have = {(e['n'], e['k']) for e in table['entries'] if ours(e) and e.get('n') is not None}
src = [e for e in table['entries'] if ours(e) and e.get('n') is not None and e['source'] == 'measured'
       and not any('_rp_' in b['kernel'] for b in e['buckets'])]
want = sorted({(int(r['N']), int(r['K'])) for f in sys.argv[3:] for r in csv.DictReader(open(f))} - have)
for n, k in want:
    d = lambda e: math.hypot(math.log(n / e['n']), math.log(k / e['k']))
    s = min(src, key=d)
    e = copy.deepcopy(s)
    e['n'], e['k'] = n, k
    table['entries'].append(e)
    print(f'{n}x{k} <- {s["n"]}x{s["k"]} (distance {d(s):.2f})')
yaml.safe_dump(table, open(sys.argv[2], 'w'), sort_keys=False, allow_unicode=True, width=1000)
