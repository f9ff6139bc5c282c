"""Call T's bench rows of the table as spliced: a shape routed by a spliced bucket takes the tuned table's row, any
other the committed table's (both benched in call T, same card, minutes apart). Writes callT/spliced.csv; then
python3 docs/perf/2026-12-07-h200-c/regimes.py kernels_only_speedup_vs_cublas callT/spliced.csv

usage (from this directory, with callT/h.tgz unpacked into callT/h): python3 composite.py
"""
import csv

def load(fs):
    d = {}
    for f in fs:
        for r in csv.DictReader(open(f)):
            d[(r['name'], int(r['M']))] = r
    return d

committed = load(['callT/h/bench-shapes-committed.csv', 'callT/h/shapes-between-committed.csv'])
tuned = load(['callT/h/bench-shapes-tuned.csv', 'callT/h/shapes-between-tuned.csv'])
llama = lambda n: n.startswith('l3-8b')

def spliced(k):  # the buckets splice.py took from the tune: 513…1024 everywhere, 257…512 but Llama-3-8B's entries
    return 513 <= k[1] <= 1024 or (257 <= k[1] <= 512 and not llama(k[0]))

rows = [tuned[k] if spliced(k) else committed[k] for k in committed]
with open('callT/spliced.csv', 'w') as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
    w.writeheader()
    w.writerows(rows)
