#!/usr/bin/env bash
# Installs nvcc 12.4 (Debian trixie's nvidia-cuda-toolkit, unpacked, not
# installed) under $PREFIX (default /opt/c124) on a Debian machine without a
# GPU, so kernels — sm_90a wgmma included — compile here and ptxas reports
# registers and spills before a GPU run. About 1 GB of packages. Then:
#
#   NVCC=$PREFIX/nvcc GEN=.gpu/gen LOGDIR=/tmp bash kernels/build.sh   # or nvcc by hand
#
# The committed fatbins still come from the GPU runner's nvcc (scripts/gpu-run.sh).
set -euo pipefail
PREFIX=${PREFIX:-/opt/c124}
lists=$(mktemp -d)
mkdir -p "$lists/lists/partial"
echo "deb http://deb.debian.org/debian trixie main contrib non-free non-free-firmware" >"$lists/sources.list"
apt_opts=(-o Dir::Etc::SourceList="$lists/sources.list" -o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists="$lists/lists")
apt-get "${apt_opts[@]}" update >/dev/null
(cd "$lists" && apt-get "${apt_opts[@]}" download nvidia-cuda-toolkit nvidia-cuda-dev libnvvm4 libcudart12 >/dev/null)
for f in "$lists"/*.deb; do dpkg -x "$f" "$PREFIX"; done
bin=$PREFIX/usr/lib/nvidia-cuda-toolkit/bin
rm -f "$bin/nvcc.profile" # the package's is a link to /etc/nvcc.profile: never write through it
cat >"$bin/nvcc.profile" <<PROFILE
NVVMIR_LIBRARY_DIR = $PREFIX/usr/lib/nvidia-cuda-toolkit/libdevice
PATH		+= $bin:$PREFIX/usr/bin:
INCLUDES	+= "-I$PREFIX/usr/include" \$(_SPACE_)
LIBRARIES	=+ \$(_SPACE_) -L/usr/lib/x86_64-linux-gnu/stubs -L/usr/lib/x86_64-linux-gnu
PROFILE
printf '#!/bin/sh\nexec %s/nvcc -ccbin g++-12 "$@"\n' "$bin" >"$PREFIX/nvcc"
chmod +x "$PREFIX/nvcc"
rm -rf "$lists"
"$PREFIX/nvcc" --version | tail -2
