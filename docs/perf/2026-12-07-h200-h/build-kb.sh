#!/usr/bin/env bash
# Builds a kbench holding only the instances whose names contain one of the patterns given (comma-separated;
# a whole kbench takes ~20 min on two cores, a filtered one 1–2), with scripts/local-nvcc.sh's nvcc 12.4:
#   [SRC=kernels/src] [KBENCH_FLAGS=-DGR_TRACE] bash build-kb.sh OUT 'sk_tp_sh_ts,_128x64x64_'      (SRC: the kernel headers, e.g. a patched copy)
set -euo pipefail
cd "$(dirname "$0")/../../.."
out=$1 pats=$2 d=$(mktemp -d)
cp scripts/kbench/kbench.cu scripts/kbench/kbench_common.h "$d"/
python3 - "$pats" scripts/kbench/ws_instances_gen.h "$d/ws_instances_gen.h" <<'PY'
import sys
pats, src, dst = sys.argv[1].split(','), sys.argv[2], sys.argv[3]
out = []
for l in open(src):
    if l.startswith('#define'):
        out.append('\n')
    if l.lstrip().startswith('X(') and not any(p in l for p in pats):
        continue
    out.append(l)
open(dst, 'w').writelines(out)
print(sum(1 for l in out if l.lstrip().startswith('X(')), 'instances')
PY
/opt/c124/nvcc -std=c++17 -O3 -gencode arch=compute_90a,code=sm_90a -DGR_HOPPER ${KBENCH_FLAGS:-} -I "${SRC:-kernels/src}" \
  -L/opt/c124/usr/lib/x86_64-linux-gnu -Xcompiler -static-libstdc++ -Xcompiler -static-libgcc \
  -o "$out" "$d/kbench.cu" -lpthread
rm -rf "$d"
