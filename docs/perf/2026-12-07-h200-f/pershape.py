"""Call T's per-shape table at M = 257…1024 (the README of this directory): cuBLAS, ours with the committed table and
ours with the table as spliced (callT/spliced.csv, composite.py), % of the roofline with the ceilings that run measured.

usage (from this directory): python3 pershape.py
"""
import csv
import io
import tarfile

t = tarfile.open('callT/h.tgz')


def load(names):
    d = {}
    for n in names:
        for r in csv.DictReader(io.TextIOWrapper(t.extractfile('./' + n))):
            d[(r['name'], int(r['M']))] = r
    return d


committed = load(['bench-shapes-committed.csv', 'shapes-between-committed.csv'])
spliced = {(r['name'], int(r['M'])): r for r in csv.DictReader(open('callT/spliced.csv'))}
short = lambda k: k.replace('gemmroute_sm90_ws_wgmma_', '').replace('_bf16_bf16_f32_tn', '').replace('x64_w12', '').rsplit('_s', 1)[0]
print('| weight | M | cuBLAS µs | committed table: ours µs (×) | as spliced: ours µs (×, % roofline) | route now |')
print('| --- | --- | --- | --- | --- | --- |')
for k in sorted(committed):
    if not 257 <= k[1] <= 1024 or committed[k]['dtype'] != 'bf16' or k[0].startswith('odd'):
        continue
    a, b = committed[k], spliced[k]
    print(f"| {k[0]} | {k[1]} | {float(b['cublas_graph_us']):.1f} | {float(a['kernels_only_graph_us']):.1f} "
          f"(×{float(a['kernels_only_speedup_vs_cublas']):.2f}) | {float(b['kernels_only_graph_us']):.1f} "
          f"(×{float(b['kernels_only_speedup_vs_cublas']):.2f}, {float(b['roofline_pct']):.0f} %) | {short(b['kernels_only_kernel'])} |")
