# Builds call G's pack (.gpu-bin/g.txz): dispatch.test and autotune at HEAD, and autotune at 6a6fce9 (before
# streamKGrid chose ws_stream_k's grid) as .gpu/autotune-old. From the repository root, after
# scripts/setup-cuda-headers.sh; the tree with the pack must stay under the device's 64 MiB.
set -euo pipefail
mkdir -p .gpu .gpu-bin
go test -c -ldflags='-s -w' -o .gpu/dispatch.test ./dispatch
go build -ldflags='-s -w' -o .gpu/autotune ./autotune
d=$(mktemp -d); git worktree add -q --detach "$d" 6a6fce9
(cd "$d" && go build -ldflags='-s -w' -o "$OLDPWD/.gpu/autotune-old" ./autotune)
git worktree remove --force "$d"
rm -f .gpu-bin/*.txz
XZ_OPT=-9 tar cJf .gpu-bin/g.txz .gpu/dispatch.test .gpu/autotune .gpu/autotune-old
ls -l .gpu-bin
