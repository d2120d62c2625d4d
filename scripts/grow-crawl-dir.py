#!/usr/bin/env python3
# grow-crawl-dir.py SRC DST COPIES: a crawl directory COPIES times as big as SRC (states and
# transitions renamed per copy; TPC=N keeps N transitions per copy), to measure what building
# the package of a big run costs (docs/measurements-memory.md).
import json,sys,os,shutil
src,dst,copies=sys.argv[1],sys.argv[2],int(sys.argv[3])
shutil.rmtree(dst,ignore_errors=True); os.makedirs(dst+'/states')
lines=[json.loads(l) for l in open(src+'/journal.jsonl')]
out=[]; tid=0
def ren(x,k): return x if x is None else f"{x}_{k}"
out.append(lines[0])
for k in range(copies):
  for j in lines[1:]:
    t=j['type']
    if t in ('run','end'): continue
    if k and t in ('status','seed'): continue
    j=json.loads(json.dumps(j))
    for f in ('stateId','fromStateId','toStateId','parentStateId'):
      if f in j: j[f]=ren(j[f],k)
    if t=='state':
      j['pageGraphRef']=f"states/{j['stateId']}.json"
      j['fingerprint']=j['fingerprint'][:28]+f"{k:04d}"
      j['routeId']=j['routeId']+f"/c{k}"
      shutil.copy(f"{src}/states/{j['stateId'].rsplit('_',1)[0]}.json", f"{dst}/states/{j['stateId']}.json")
    if t=="transition" and (tid >= (k+1)*int(os.environ.get("TPC","100000"))): continue
    if t=="transition":
      tid+=1; j['transitionId']=f"t_{tid:05d}"
    out.append(j)
out.append([j for j in lines if j['type']=='end'][0])
with open(dst+'/journal.jsonl','w') as f:
  for j in out: f.write(json.dumps(j,separators=(',',':'))+'\n')
print(len([j for j in out if j['type']=='state']),'states',tid,'transitions')
