"""What half-octave M buckets would buy, from one tune's timings (tune.csv): for each weight and each octave bucket
[lo, hi] of the tuned range, the least worst-case loss of one kernel over every M timed in it (every candidate
timed at all of them), against the worse of two kernels, one for the Ms up to 3·lo/2 and one above (the edges of
docs/proposal-buckets.md's proposal 1); and the geometric mean of the loss over those Ms, and the loss at the
bucket's upper edge (a power of two, where batch sizes cluster).

usage: python3 halfoct.py TUNE.csv LO HI"""
import csv, collections, math, sys
path, lo0, hi0 = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
t = collections.defaultdict(lambda: collections.defaultdict(dict))
for r in csv.DictReader(open(path)):
    m = int(r['M'])
    k = r['kernel'] + ' s' + r['split_k']
    v = float(r['graph_us'])
    t[r['name']][k][m] = min(v, t[r['name']][k].get(m, 1e99))


def minimax(cands, ms):
    """(worst loss, kernel, {m: loss}) of the candidate timed at every m of ms with the least worst loss against the
    best there."""
    best = {m: min(v[m] for v in cands.values() if m in v) for m in ms}
    rows = [(max(v[m] / best[m] for m in ms), k, {m: v[m] / best[m] for m in ms}) for k, v in cands.items()
            if all(m in v for m in ms)]
    return min(rows, key=lambda r: r[:2]) if rows else (float('nan'), '', {})


def gm(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs))


lo = lo0
while lo < hi0:
    hi = 2 * (lo - 1) if lo > 1 else 1
    for name, cands in sorted(t.items()):
        ms = sorted({m for v in cands.values() for m in v if lo <= m <= hi})
        low, high = [m for m in ms if m <= 3 * (lo - 1) // 2 + 1], [m for m in ms if m > 3 * (lo - 1) // 2 + 1]
        if not low or not high:
            continue
        one, k1, l1 = minimax(cands, ms)
        a, ka, la = minimax(cands, low)
        b, kb, lb = minimax(cands, high)
        l2 = {**la, **lb}
        short = lambda k: k.replace('gemmroute_sm90_ws_wgmma_', '').replace('_bf16_bf16_f32_tn', '')
        print(f'{name:22s} [{lo}, {hi}] Ms {ms}: one kernel worst {one:.3f} mean {gm(l1.values()):.3f} '
              f'({short(k1)}); two worst {max(a, b):.3f} mean {gm(l2.values()):.3f} ({short(ka)} | {short(kb)}); '
              f'at M = {hi}: {l1[hi]:.3f} → {l2[hi]:.3f}' if hi in l1 else '')
    lo = 2 * lo - 1 if lo > 1 else 2
