"""Write a re-measured table (autotune tune -base-routes output) over the committed one, keeping the committed
entry order (testdata/normal_plans.txt follows it) and the committed file's YAML style.

usage: python3 land.py TUNED.yaml buckets.yaml
Every entry is taken whole from TUNED (device, date, buckets: what the run measured, or the base's where it did not
touch it), and so is the provenance; only the order of the entries is the committed one's.
"""
import sys
import yaml

tuned_path, table_path = sys.argv[1], sys.argv[2]
tuned, table = yaml.safe_load(open(tuned_path)), yaml.safe_load(open(table_path))


def key(e):
    return (e['arch'], e['types'], e['layout'], e.get('n'), e.get('k'))


new = {key(e): e for e in tuned['entries']}
old_keys = [key(e) for e in table['entries']]
if set(new) != set(old_keys):
    sys.exit(f"land.py: the tables hold other entries: {set(new) ^ set(old_keys)}")
tuned['entries'] = [new[k] for k in old_keys]
with open(table_path, 'w') as f:
    yaml.safe_dump(tuned, f, sort_keys=False, allow_unicode=True, width=1000)
print(f"{sum(1 for k, e in zip(old_keys, table['entries']) if new[k] != e)} of {len(old_keys)} entries changed")
