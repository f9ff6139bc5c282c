# Per-shape table of a bench CSV: ours µs, cuBLAS µs, ×, % of the roofline with the ceilings that run
# measured (peer.log's first line: read TB/s, bf16 dense TFLOP/s). Usage: pershape.py bench.csv peer.log
import csv, re, sys
head = open(sys.argv[2]).readline()
rd = float(re.search(r'read ([0-9.]+) TB/s', head).group(1)) * 1e12
pk = float(re.search(r'bf16 dense ([0-9.]+) TFLOP/s', head).group(1)) * 1e12
print(f"ceilings measured in the run: read {rd/1e12:.2f} TB/s, bf16 dense {pk/1e12:.0f} TFLOP/s\n")
print("| weight | M | N | K | ours µs | cuBLAS µs | × | ours % roof | cuBLAS % roof | kernel (level) |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for r in csv.DictReader(open(sys.argv[1])):
    m, n, k = int(r['M']), int(r['N']), int(r['K'])
    ours, cub = float(r['graph_us']), float(r['cublas_graph_us'] or 0)
    roof = max(2 * m * n * k / pk, 2 * (m * k + n * k + m * n) / rd) * 1e6
    kern = r['kernel'].replace('gemmroute_sm90_', '').replace('gemmroute_sm80_', 'sm80 ')
    print(f"| {r['name']} | {m} | {n} | {k} | {ours:.1f} | {cub:.1f} | {cub/ours:.2f} | {100*roof/ours:.0f} % | {100*roof/cub:.0f} % | {kern} ({r['level']}) |")
