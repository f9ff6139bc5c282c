"""Card-for-card A/B of two re-measured tables: the committed build (OLD) and the N-tail build (NEW), same machine.

usage: python3 ab.py OLD_MANIFEST NEW_MANIFEST OLD.yaml NEW.yaml [N=769] TYPES...
(TYPES: the entries' types to compare, e.g. bf16 e4m3→bf16; N=…: that weight's entries only)
Per point (entry, M) where both tables recorded a time: new / old, split into the buckets that kept a kernel whose
digest moved, kept one whose digest did not (the control: run-to-run spread), and changed kernel or split-K; the
geomean, the spread, and every point more than 3 % slower.
"""
import json
import math
import sys
import yaml


def points(path, types):
    out = {}
    for e in yaml.safe_load(open(path))['entries']:
        if e['arch'] != 'sm_90' or e['types'] not in types or e.get('source') != 'measured':
            continue
        for b in e['buckets']:
            for m, t in (b.get('times_us') or {}).items():
                out[(e['types'], e.get('n'), e.get('k'), m)] = (t, b['kernel'].replace('gemmroute_sm90_', ''), b['split_k'])
    return out


def digests(path):
    return {k['name'].replace('gemmroute_sm90_', ''): k['digest'] for k in json.load(open(path))['kernels']}


do, dn = digests(sys.argv[1]), digests(sys.argv[2])
args = sys.argv[5:]
only_n = int(args.pop(0)[2:]) if args and args[0].startswith('N=') else None
old, new = points(sys.argv[3], set(args)), points(sys.argv[4], set(args))


def kind(p):
    if old[p][1:] != new[p][1:]:
        return 'route changed'
    return 'same kernel, digest moved' if do[old[p][1]] != dn[old[p][1]] else 'same kernel, digest kept (control)'


for label in ('same kernel, digest moved', 'same kernel, digest kept (control)', 'route changed'):
    rs = [(new[p][0] / old[p][0], p) for p in sorted(old.keys() & new.keys(), key=str)
          if kind(p) == label and (only_n is None or p[1] == only_n)]
    if not rs:
        continue
    g = math.exp(sum(math.log(r) for r, _ in rs) / len(rs))
    v = sorted(r for r, _ in rs)
    print(f"{label}: {len(rs)} points, new/old geomean {g:.3f}, "
          f"min {v[0]:.3f}, median {v[len(v) // 2]:.3f}, max {v[-1]:.3f}; "
          f"> 3 % slower {sum(r > 1.03 for r in v)}, > 3 % faster {sum(r < 0.97 for r in v)}")
    for r, p in rs:
        if r > 1.03 or r < 0.85:
            print(f"  {p[0]} N={p[1]} K={p[2]} M={p[3]}: {old[p][0]:.2f} → {new[p][0]:.2f} µs ({r:.3f}) "
                  f"{old[p][1]}/{old[p][2]} → {new[p][1]}/{new[p][2]}")
