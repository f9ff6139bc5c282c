"""Where a kernel's warps wait: ncu's source page (--page source --print-source sass --csv), summed by kind.

usage: python3 stalls.py SRC.csv[.gz] [TOP]
Kinds: an mbarrier wait (a SYNCS...TRYWAIT and the branch that waits on its result, named by the barrier operand),
waiting for the tensor cores (WARPGROUP.DEPBAR), issuing wgmma (HGMMA), global and shared stores, named and cluster barriers (a cluster kernel's idle producer warps wait in the last),
and the rest. Prints each kind's share of all samples, then the TOP (default 12) instructions with their largest
stall reason.
"""
import csv
import gzip
import sys

path, top = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 12
text = (gzip.open if path.endswith('.gz') else open)(path, 'rt').read().splitlines()
start = next(i for i, l in enumerate(text) if l.startswith('"Address"'))
rows = list(csv.reader(text[start:]))
head, rows = rows[0], [r for r in rows[1:] if len(r) == len(rows[0])]
S = head.index('Warp Stall Sampling (All Samples)')
stalls = [j for j, n in enumerate(head) if n.startswith('stall_') and 'Not Issued' not in n]
total = sum(int(r[S]) for r in rows) or 1
kinds, last_wait = {}, None
for r in rows:
    sass, n = r[1].strip(), int(r[S])
    if 'TRYWAIT' in sass:
        last_wait = 'mbarrier wait ' + sass.split('[', 1)[1].split(']')[0]
        kind = last_wait
    elif 'BRA' in sass and last_wait and '@' in sass.split()[0]:
        kind, last_wait = last_wait, None  # the branch that waits on the TRYWAIT's predicate
    else:
        last_wait = None
        kind = ('tensor-core wait (DEPBAR)' if 'WARPGROUP.DEPBAR' in sass else 'wgmma issue (HGMMA)' if 'HGMMA' in sass
                else 'global store' if sass.split()[-1:] and ('STG' in sass) else 'shared store' if 'STS' in sass or 'st.shared' in sass
                else 'TMA store' if 'UTMASTG' in sass or 'UBLKCP' in sass else 'named barrier' if 'BAR.SYNC' in sass or 'BAR.ARV' in sass
                else 'cluster barrier (UCGABAR)' if 'UCGABAR' in sass
                else 'other')
    kinds[kind] = kinds.get(kind, 0) + n
print(f'{len(rows)} instructions, {total} samples')
for k, v in sorted(kinds.items(), key=lambda kv: -kv[1]):
    if v * 200 >= total:
        print(f'  {100 * v / total:5.1f} %  {k}')
print(f'top {top} instructions:')
for r in sorted(rows, key=lambda r: -int(r[S]))[:top]:
    j = max(stalls, key=lambda j: int(r[j]))
    print(f'  {int(r[S]):7d}  {r[1].strip()[:70]:70s} {head[j]}')
