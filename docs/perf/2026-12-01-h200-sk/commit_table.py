# The committed buckets.yaml = table C of merge.py on the schema-2 table: every bf16 sm_90 entry that call 4 tuned
# keeps its buckets ≤ 256 and takes call 4's buckets ≥ 257, each stamped with the digest of the kernel it was
# measured with (the manifest's: call 4 ran these fatbins' code, byte for byte).
#   python3 docs/perf/2026-12-01-h200-sk/commit_table.py docs/perf/2026-12-01-h200-sk/c4/buckets.yaml
import json, sys, yaml
base = yaml.safe_load(open('buckets.yaml')); tuned = yaml.safe_load(open(sys.argv[1]))
digest = {k['name']: k['digest'] for k in json.load(open('kernels/manifest.json'))['kernels']}
key = lambda e: (e['arch'], e['in'], e['out'], e['layout'], e.get('n'), e.get('k'))
new = {key(e): e for e in tuned['entries'] if e['arch'] == 'sm_90' and e['in'] == 'bf16'}
changed = 0
for e in base['entries']:
    t = new.pop(key(e), None)
    if t is None:
        continue
    low = [b for b in e['buckets'] if b.get('max_m', 1 << 62) <= 256]
    high = []
    for b in t['buckets']:
        if b['min_m'] < 257:
            continue
        b = dict(b)
        b = {k: v for k, v in list(b.items())[:3]} | {'digest': digest[b['kernel']]} | {k: v for k, v in list(b.items())[3:]}
        high.append(b)
    assert low[-1]['max_m'] == 256 and high[0]['min_m'] == 257, key(e)
    same = lambda bs: [(b['min_m'], b.get('max_m'), b['kernel'], b['split_k'], b.get('times_us')) for b in bs]
    if same(low + high) == same(e['buckets']):
        continue  # not re-measured (an entry the tune carried over from its base)
    e['buckets'] = low + high
    e['source'], e['device'], e['date'] = 'measured', 'NVIDIA H200', '2026-12-01'
    changed += 1
assert not new, new.keys()
yaml.safe_dump(base, open('buckets.yaml', 'w'), sort_keys=False, allow_unicode=True, width=1000)
print('entries changed:', changed)
