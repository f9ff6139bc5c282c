"""Splice a tune's buckets lo…hi into the committed table, keeping its entry order and every other bucket.

usage: python3 splice.py TUNED.yaml buckets.yaml LO HI [KEEP ...]
KEEP: entries (NxK, e.g. 4096x14336, or "default"; of every type) whose buckets stay the committed table's. The provenance stays the committed one's,
with its date, driver and method, and so do the entries' source, device and date; a spliced bucket carries its own where they differ (table schema 4).
"""
import sys
import yaml

tuned_path, table_path, lo, hi = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
keep = set(sys.argv[5:])
tuned = yaml.safe_load(open(tuned_path))
table = yaml.safe_load(open(table_path))


def key(e):
    return (e['arch'], e['types'], e['layout'], e.get('n'), e.get('k'))


def name(e):
    return 'default' if e.get('n') is None else f"{e['n']}x{e['k']}"


def source(e, b):
    """Bucket b's source, device and date: its own, else its entry e's (dispatch.Bucket.From)."""
    timed = any(x.get('times_us') for x in e['buckets'])
    src = b.get('source') or e.get('source') or ('measured' if timed else 'model')
    return src, b.get('device') or e.get('device'), b.get('date') or e.get('date')


def within(b):
    return lo <= b['min_m'] and b.get('max_m', 1 << 62) <= hi  # the last bucket has no max_m


new = {key(e): e for e in tuned['entries']}
changed = 0
for e in table['entries']:
    t = new.get(key(e))
    if t is None or name(e) in keep:
        continue
    inside = [b for b in t['buckets'] if within(b)]
    if not inside:
        continue
    outside = [b for b in e['buckets'] if not within(b)]
    old = {b['min_m']: (b['kernel'], b['split_k']) for b in e['buckets']}
    changed += sum(1 for b in inside if old.get(b['min_m']) != (b['kernel'], b['split_k']))
    own = source(e, {})
    for b in inside:  # a spliced bucket says its own source, device and date where they are not its entry's (schema 4)
        for field, v, ev in zip(('source', 'device', 'date'), source(t, b), own):
            b.pop(field, None)
            if v != ev:
                b[field] = v
                table['schema'] = max(table['schema'], 4)
    e['buckets'] = sorted(outside + inside, key=lambda b: b['min_m'])
with open(table_path, 'w') as f:
    yaml.safe_dump(table, f, sort_keys=False, allow_unicode=True, width=1000)
print(f'{changed} buckets changed in {lo}…{hi}')
