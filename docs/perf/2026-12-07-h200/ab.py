# ab.py — medians of two kbench builds' graph-replay times side by side, from `kbench timeall` logs.
# usage: python3 ab.py FIRST SECOND MARK LOG...   (a log whose path contains MARK is SECOND's, the rest FIRST's)
import collections, re, statistics, sys

first, second, mark = sys.argv[1:4]
d = collections.defaultdict(lambda: ([], []))
for f in sys.argv[4:]:
    col = 1 if mark in f else 0
    for l in open(f):
        m = re.match(r'\s+(\S+)\s+M=(\d+)\s+N=(\d+)\s+K=(\d+)\s+([\d.]+) us', l)
        if m and (m[1] == 'cublas' or m[1].endswith('/sk1')):
            key = (int(m[3]), int(m[4]), int(m[2]), m[1].replace('_bf16_bf16_f32_tn', '').split('/')[0][:40])
            d[key][col].append(float(m[5]))
print('%-5s %-5s %-5s %-40s %9s %9s %7s' % ('N', 'K', 'M', 'kernel', first + ' µs', second + ' µs', second + '/' + first))
for (n, k, mm, name), (a, b) in sorted(d.items()):
    if a and b:
        a, b = statistics.median(a), statistics.median(b)
        print('%-5d %-5d %-5d %-40s %9.2f %9.2f %7.3f' % (n, k, mm, name, a, b, b / a))
