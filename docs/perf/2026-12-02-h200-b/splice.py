#!/usr/bin/env python3
"""splice.py BASE.yaml TUNED.yaml LO HI OUT.yaml: BASE with, in every sm_90 exact entry that TUNED also has, the
buckets inside [LO, HI] replaced by TUNED's buckets of the same edges (TUNED came from `autotune tune -max-m HI`,
so its buckets up to HI have BASE's edges; its last bucket [HI+1, ∞) is not used). Entries TUNED lacks are copied.
Prints each replaced bucket: edges, the kernel before and after."""
import copy, sys, yaml
base, tuned = yaml.safe_load(open(sys.argv[1])), yaml.safe_load(open(sys.argv[2]))
lo, hi = int(sys.argv[3]), int(sys.argv[4])
key = lambda e: (e['arch'], e['types'], e['layout'], e.get('n'), e.get('k'))
fresh = {key(e): e for e in tuned['entries'] if e.get('n') is not None}
out = []
for e in base['entries']:
    t = fresh.get(key(e))
    if t is None or e['arch'] != 'sm_90':
        out.append(e)
        continue
    tb = {(b['min_m'], b.get('max_m')): b for b in t['buckets']}
    e = copy.deepcopy(e)
    for i, b in enumerate(e['buckets']):
        mx = b.get('max_m')
        if b['min_m'] >= lo and mx is not None and mx <= hi:
            nb = tb[(b['min_m'], mx)]
            print(f"{key(e)} [{b['min_m']}, {mx}]: {b['kernel']} split {b['split_k']} -> {nb['kernel']} split {nb['split_k']}")
            e['buckets'][i] = nb
    e['date'] = t['date']
    out.append(e)
base['entries'] = out
yaml.safe_dump(base, open(sys.argv[5], 'w'), sort_keys=False, allow_unicode=True, width=1000)
