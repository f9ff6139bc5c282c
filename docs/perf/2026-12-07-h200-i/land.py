"""Splice call H's re-measured buckets into the committed table: only the buckets whose route or recorded runner-up
is an sk_sh_ts kernel (in either table: the kernels whose digests the shift fix moved), each from the re-measured
table (RETIMED.yaml, autotune tune -base-routes -vendor=false), keeping the committed table's entry order, every
other bucket and the provenance. A spliced bucket says its own source, device and date where they are not its
entry's (table schema 4).

usage: python3 land.py RETIMED.yaml buckets.yaml [PATTERN]   (PATTERN: default _sk_sh_ts_)
"""
import sys
import yaml

retimed_path, table_path = sys.argv[1], sys.argv[2]
pat = sys.argv[3] if len(sys.argv) > 3 else '_sk_sh_ts_'
retimed = yaml.safe_load(open(retimed_path))
table = yaml.safe_load(open(table_path))


def key(e):
    return (e['arch'], e['types'], e['layout'], e.get('n'), e.get('k'))


def source(e, b):
    """Bucket b's source, device and date: its own, else its entry e's (dispatch.Bucket.From)."""
    timed = any(x.get('times_us') for x in e['buckets'])
    src = b.get('source') or e.get('source') or ('measured' if timed else 'model')
    return src, b.get('device') or e.get('device'), b.get('date') or e.get('date')


def names(b):
    return pat in b['kernel'] or pat in str(b.get('runner_up', ''))


new = {key(e): e for e in retimed['entries']}
spliced = moved = 0
for e in table['entries']:
    t = new.get(key(e))
    if t is None:
        continue
    theirs = {b['min_m']: b for b in t['buckets']}
    own = source(e, {})
    for i, b in enumerate(e['buckets']):
        r = theirs.get(b['min_m'])
        if r is None or r.get('max_m') != b.get('max_m') or not (names(b) or names(r)) or r.get('digest') == b.get('digest') and r.get('times_us') == b.get('times_us'):
            continue
        r = dict(r)
        for field, v, ev in zip(('source', 'device', 'date'), source(t, r), own):
            r.pop(field, None)
            if v != ev:
                r[field] = v
                table['schema'] = max(table['schema'], 4)
        spliced += 1
        moved += (r['kernel'], r['split_k']) != (b['kernel'], b['split_k'])
        print(f"{e['types']} {e.get('n')}x{e.get('k')} [{b['min_m']}, {b.get('max_m', '∞')}]: {b['kernel'][17:]} s{b['split_k']} "
              f"{b.get('times_us')} -> {r['kernel'][17:]} s{r['split_k']} {r.get('times_us')}")
        e['buckets'][i] = r
with open(table_path, 'w') as f:
    yaml.safe_dump(table, f, sort_keys=False, allow_unicode=True, width=1000)
print(f'{spliced} buckets spliced, {moved} of them routed to another kernel or split')
