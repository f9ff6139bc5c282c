"""Copy the measured batch-invariant classes (each entry's `invariant`) of a tuned table into the committed one, entry by
entry (same arch, types, layout, N, K), keeping every bucket and the provenance of the committed table.

usage: python3 invariants.py TUNED.yaml buckets.yaml
"""
import sys
import yaml

tuned_path, table_path = sys.argv[1], sys.argv[2]
tuned = yaml.safe_load(open(tuned_path))
table = yaml.safe_load(open(table_path))


def key(e):
    return (e['arch'], e['types'], e['layout'], e.get('n'), e.get('k'))


new = {key(e): e['invariant'] for e in tuned['entries'] if e.get('invariant', {}).get('source') == 'measured'}
copied = 0
for e in table['entries']:
    inv = new.pop(key(e), None)
    if inv is not None:
        e['invariant'] = inv
        copied += 1
if new:
    sys.exit(f'entries of {tuned_path} the committed table lacks: {sorted(new)}')
with open(table_path, 'w') as f:
    yaml.safe_dump(table, f, sort_keys=False, allow_unicode=True, width=1000)
print(f'{copied} entries given their measured class')
