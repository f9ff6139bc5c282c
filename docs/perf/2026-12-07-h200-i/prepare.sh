# Builds call H's pack (.gpu-bin/h.txz): dispatch.test and autotune stripped (both embed the fatbins; xz -9's
# window shares them, 7 MB for both), and a kbench of sk_sh_ts and its sk_ts twins. From the repository root.
set -euo pipefail
go test -c -ldflags='-s -w' -o .gpu/dispatch.test ./dispatch
go build -ldflags='-s -w' -o .gpu/autotune ./autotune
bash docs/perf/2026-12-07-h200-h/build-kb.sh .gpu/kbench 'sk_sh_ts,_sk_ts_'
mkdir -p .gpu-bin && rm -f .gpu-bin/*.txz
XZ_OPT=-9 tar cJf .gpu-bin/h.txz .gpu/dispatch.test .gpu/autotune .gpu/kbench
ls -l .gpu-bin
