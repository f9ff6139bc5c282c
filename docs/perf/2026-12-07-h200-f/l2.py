"""Bytes between L2 and shared memory per second of the fastest kernels of the twenty-third session's call A tune
(Llama-3-8B, M = 129…1024, split-K 1): a BM x BN tile reads BM·K + BN·K 16-bit elements, so a GEMM moves
(Mp·Np·K·2)·(1/BN + 1/BM) bytes (Mp, Np: M and N rounded up to the tiles), over the kernel's graph time. The name's
first two sizes are taken as BM x BN (for swap tiles, tokens x weights).

usage (from the repository root): python3 docs/perf/2026-12-07-h200-f/l2.py [WEIGHT-PREFIX]
"""
import collections
import csv
import io
import math
import re
import sys
import tarfile

t = tarfile.open('docs/perf/2026-12-07-h200-e/callA/h.tgz')
rows = csv.DictReader(io.TextIOWrapper(t.extractfile('./rh/tune.csv')))
best = collections.defaultdict(list)
for r in rows:
    m = re.search(r'_(\d+)x(\d+)x(\d+)_w', r['kernel'])
    if r['check'] != 'ok' or not m or r['split_k'] != '1':
        continue
    bm, bn = int(m.group(1)), int(m.group(2))
    M, N, K = int(r['M']), int(r['N']), int(r['K'])
    mp, np_ = math.ceil(M / bm) * bm, math.ceil(N / bn) * bn
    us = float(r['graph_us'])
    best[(r['name'], M)].append((us, r['kernel'].replace('gemmroute_sm90_', '').replace('_bf16_bf16_f32_tn', ''),
                                 2 * K * mp * np_ * (1 / bn + 1 / bm) / us / 1e6))
prefix = sys.argv[1] if len(sys.argv) > 1 else 'llama3-8b'
for k in sorted(best):
    if k[0].startswith(prefix):
        us, name, tbs = min(best[k])
        print(f'{k[0]:20s} M={k[1]:5d} {us:7.1f} µs {name:45s} {tbs:5.1f} TB/s')
