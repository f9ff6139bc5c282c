# The committed buckets.yaml takes call 1's measured entry for N = 769, K = 5125 (bf16, sm_90) whole, as
# `autotune tune -shapes shapes-odd.csv` wrote it (the repack kernels admitted); every other entry as it was.
#   python3 docs/perf/2026-12-02-h200/commit_odd.py docs/perf/2026-12-02-h200/c1/buckets-odd.yaml.xz
import sys, yaml
base = yaml.safe_load(open('buckets.yaml')); tuned = yaml.safe_load(open(sys.argv[1]))
key = lambda e: (e['arch'], e['types'], e['layout'], e.get('n'), e.get('k'))
want = ('sm_90', 'bf16', 'tn', 769, 5125)
new = [e for e in tuned['entries'] if key(e) == want]
assert len(new) == 1, len(new)
hits = [i for i, e in enumerate(base['entries']) if key(e) == want]
assert len(hits) == 1, hits
base['entries'][hits[0]] = new[0]
yaml.safe_dump(base, open('buckets.yaml', 'w'), sort_keys=False, allow_unicode=True, width=1000)
print('replaced entry', want)
