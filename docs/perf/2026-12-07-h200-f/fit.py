# The tail model of dispatch/plan.go (tailItemKTiles, tailPartialKTiles) fitted to call K's kbench timings of
# ws_wgmma_sk_tp_sh_ts at tail splits 1…8; run from the repository root: python3 docs/perf/2026-12-07-h200-f/fit.py
import re,collections,math
def cd(a,b): return -(-a//b)
d=collections.defaultdict(dict)
for l in open('docs/perf/2026-12-07-h200-f/callK/time.log'):
    m=re.match(r'\s+(\S+)\s+M=(\d+)\s+N=(\d+)\s+K=(\d+)\s+([\d.]+) us',l)
    if not m: continue
    name,M,N,K,us=m.groups()
    if 'sk_tp' not in name: continue
    bm,bn=map(int,re.search(r'tn_(\d+)x(\d+)x64',name).groups()); S=int(name.split('/tp')[-1])
    d[(int(M),int(N),int(K),bm,bn)][S]=float(us)
def model(M,N,K,bm,bn,S,o,f,g=132):
    T=cd(M,bm)*cd(N,bn); kt=cd(K,64)
    full=T//g*g; rest=T-full; parts=1
    if rest>0: parts=max(1,min(S,kt)); kp=cd(kt,parts); parts=cd(kt,kp)
    if parts==1: return cd(T,g)*(kt+o)
    kp=cd(kt,parts)
    return full//g*(kt+o)+cd(rest*parts,g)*(kp+o)+parts*f
best=None
for o in [x*0.5 for x in range(0,81)]:
  for f in [x*0.5 for x in range(0,61)]:
    err=[];
    for key,row in d.items():
        if 1 not in row: continue
        m1=model(*key,1,o,f)
        for S,us in row.items():
            if S==1: continue
            err.append(math.log((model(*key,S,o,f)/m1)/(us/row[1]))**2)
    e=math.sqrt(sum(err)/len(err))
    if best is None or e<best[0]: best=(e,o,f,len(err))
print(best)
e,o,f,_=best
# how often the model's best S is within 5% of the measured best
hit=0;n=0;loss=[]
for key,row in d.items():
    ms=min(row,key=row.get)
    mod=min(row,key=lambda S: model(*key,S,o,f))
    loss.append(row[mod]/row[ms]); n+=1
    old=min(row,key=lambda S: model(*key,S,0,key[3]*key[4]*4/((key[3]+key[4])*128)))
    print(key, 'measured best',ms,row[ms],'model',mod,row[mod], 'old model', old, row[old], 'S1', row.get(1))
print('geomean loss', math.exp(sum(map(math.log,loss))/len(loss)))
print('--- leave one weight out')
def fit(keys):
    best=None
    for o in [x*0.5 for x in range(0,81)]:
      for f in [x*0.5 for x in range(0,61)]:
        err=[]
        for key in keys:
            row=d[key]; m1=model(*key,1,o,f)
            for S,us in row.items():
                if S>1: err.append(math.log((model(*key,S,o,f)/m1)/(us/row[1]))**2)
        e=sum(err)/len(err)
        if best is None or e<best[0]: best=(e,o,f)
    return best[1],best[2]
allloss=[]; oldloss=[]; s1loss=[]
for w in [(5120,4096),(4096,4096),(3072,8192),(6144,4096)]:
    train=[k for k in d if (k[1],k[2])!=w]; test=[k for k in d if (k[1],k[2])==w]
    o,f=fit(train)
    for key in test:
        row=d[key]; ms=min(row.values())
        mod=min(row,key=lambda S: model(*key,S,o,f))
        old=min(row,key=lambda S: model(*key,S,0,key[3]*key[4]*4/((key[3]+key[4])*128)))
        allloss.append(row[mod]/ms); oldloss.append(row[old]/ms); s1loss.append(row[1]/ms)
    print(w,'fit',o,f)
g=lambda L: math.exp(sum(map(math.log,L))/len(L))
print('held-out weight: new model %.4f worst %.3f; old model %.4f worst %.3f; always S=1 %.4f worst %.3f'%(g(allloss),max(allloss),g(oldloss),max(oldloss),g(s1loss),max(s1loss)))
print('--- tp (model S, o=11.5 f=6) against sk_sh_ts, same tile')
sk={}
for l in open('docs/perf/2026-12-07-h200-f/callK/time.log'):
    m=re.match(r'\s+(\S+)\s+M=(\d+)\s+N=(\d+)\s+K=(\d+)\s+([\d.]+) us',l)
    if m and 'sk_sh_ts' in m.group(1):
        bm,bn=map(int,re.search(r'tn_(\d+)x(\d+)x64',m.group(1)).groups())
        sk[(int(m.group(2)),int(m.group(3)),int(m.group(4)),bm,bn)]=float(m.group(5))
r=[];rb=[]
for key,row in d.items():
    mod=min(row,key=lambda S: model(*key,S,11.5,6))
    if key in sk: r.append(row[mod]/sk[key])
bykey=collections.defaultdict(list)
for key,row in d.items():
    mod=min(row,key=lambda S: model(*key,S,11.5,6)); bykey[key[:3]].append(row[mod])
skb=collections.defaultdict(list)
for key,v in sk.items(): skb[key[:3]].append(v)
for k in bykey:
    rb.append(min(bykey[k])/min(skb[k]))
    print(k, 'best tp %.1f best sk %.1f'%(min(bykey[k]),min(skb[k])))
print('same tile: tp/sk geomean %.3f (min %.2f max %.2f) n=%d'%(g(r),min(r),max(r),len(r)))
print('best of tiles: tp/sk geomean %.3f (min %.2f max %.2f)'%(g(rb),min(rb),max(rb)))
