# The candidate tables of call 5, from the committed buckets.yaml and call 4's tune (/work/.device/5/buckets.yaml):
#   A: the tune's output as written (its 7 weights' entries and its default entry, chosen over those 7 weights);
#   B: A, but the default entry's buckets ≤ 256 from the committed table (a 7-weight default lost at M = 17…256 on
#      the held-out weights in the previous session's call 5).
import copy, sys, yaml
o = yaml.safe_load(open('buckets.yaml')); n = yaml.safe_load(open(sys.argv[1]))
key = lambda e: (e['arch'], e['in'], e['out'], e['layout'], e.get('n'), e.get('k'))
old = {key(e): e for e in o['entries']}
yaml.safe_dump(n, open(sys.argv[2] + '/buckets-A.yaml', 'w'), sort_keys=False, allow_unicode=True, width=1000)
out = []
for e in n['entries']:
    k = key(e)
    if k[4] is None and e['arch'] == 'sm_90' and e['in'] == 'bf16' and k in old:
        ob = [b for b in old[k]['buckets'] if b.get('max_m', 1 << 62) <= 256]
        nb = [b for b in e['buckets'] if b['min_m'] >= 257]
        assert ob[-1]['max_m'] == 256 and nb[0]['min_m'] == 257, k
        e = copy.deepcopy(e); e['buckets'] = ob + nb
    out.append(e)
n['entries'] = out
yaml.safe_dump(n, open(sys.argv[2] + '/buckets-B.yaml', 'w'), sort_keys=False, allow_unicode=True, width=1000)

# C (call 6): B with every entry's buckets ≤ 256 from the committed table, exact entries too: in call 5 the new
# exact entries lost at M = 128 (qkv 0.77 → 0.61, o 0.78 → 0.72: the bucket [65, 128] chosen for its edge M = 65)
# and the new default entry at M = 256 on held-out weights, while every regime ≥ 257 gained.
out = []
for e in n['entries']:
    k = key(e)
    if e['arch'] == 'sm_90' and e['in'] == 'bf16' and k in old and k[4] is not None:
        ob = [b for b in old[k]['buckets'] if b.get('max_m', 1 << 62) <= 256]
        nb = [b for b in e['buckets'] if b['min_m'] >= 257]
        if ob and nb and ob[-1]['max_m'] == 256 and nb[0]['min_m'] == 257:
            e = copy.deepcopy(e); e['buckets'] = ob + nb
    out.append(e)
n['entries'] = out
yaml.safe_dump(n, open(sys.argv[2] + '/buckets-C.yaml', 'w'), sort_keys=False, allow_unicode=True, width=1000)
