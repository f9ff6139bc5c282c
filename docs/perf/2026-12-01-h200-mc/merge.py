# buckets ≤ 1024 from the committed table (tuned 2026-12-01 on the H200 before the multicast kernels),
# buckets ≥ 1025 and the new weights' entries from call 5's tune.
import yaml, copy
o = yaml.safe_load(open('buckets.yaml')); n = yaml.safe_load(open('/work/.device/5/buckets.yaml'))
key = lambda e: (e['arch'], e['in'], e['out'], e['layout'], e.get('n'), e.get('k'))
old = {key(e): e for e in o['entries']}
out = []
merged = 0
for e in n['entries']:
    k = key(e)
    if k in old and e['arch'] == 'sm_90' and e['in'] == 'bf16' and e['buckets'] != old[k]['buckets']:
        ob = [b for b in old[k]['buckets'] if b.get('max_m', 1 << 62) <= 1024]
        nb = [b for b in e['buckets'] if b['min_m'] >= 1025]
        assert ob[-1]['max_m'] == 1024 and nb[0]['min_m'] == 1025, k
        e = copy.deepcopy(e); e['buckets'] = ob + nb; merged += 1
    out.append(e)
n['entries'] = out
print('merged', merged, 'entries; total', len(out), 'old', len(o['entries']))
yaml.safe_dump(n, open('/tmp/buckets-merged.yaml', 'w'), sort_keys=False, allow_unicode=True, width=1000)
