import csv, math, sys
rows = list(csv.DictReader(open(sys.argv[1])))
def reg(m):
    m = int(m)
    return 0 if m <= 16 else 1 if m <= 256 else 2 if m <= 1023 else 3
sets = {}
for r in rows:
    fam = r['name'].split('.')[0]
    key = 'llama3-8b' if fam.startswith('l3-8b') or fam == 'llama3-8b' else fam if fam in ('odd', 'floor') else 'held-out'
    if not r['speedup_vs_cublas']: continue
    sets.setdefault(key, {}).setdefault(reg(r['M']), []).append(float(r['speedup_vs_cublas']))
for k, d in sets.items():
    out = []
    for g in range(4):
        v = d.get(g, [])
        out.append(f"{math.exp(sum(map(math.log, v))/len(v)):.2f} (min {min(v):.2f}, n={len(v)})" if v else "-")
    print(f"{k:10s} " + " / ".join(out))
