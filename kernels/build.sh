#!/usr/bin/env bash
# Rebuilds gemmroute's kernel images with nvcc and refreshes the manifest.
#
#   bash kernels/build.sh            # from the repository root; needs nvcc ≥ 12 (sm_90a)
#
# Writes kernels/images/sm80.fatbin (sm_80 SASS + compute_80 PTX) and
# kernels/images/sm90.fatbin (sm_90a SASS), the ptxas resource report in
# $LOGDIR/ptxas-*.log (default /tmp), then runs the manifest generator with the nvcc
# version, which stamps the sources' hash and each kernel's digest (of its machine
# code in the new images) into kernels/manifest.json. The
# generator is `go run -tags nocuda ./kernels/internal/gen` unless GEN names a prebuilt
# binary (for machines without Go). Commit the fatbins and the manifest.
set -euo pipefail
cd "$(dirname "$0")/.."
GEN=${GEN:-go run -tags nocuda ./kernels/internal/gen}
NVCC=${NVCC:-nvcc}
mkdir -p "${LOGDIR:-/tmp}"
ver=$($NVCC --version | grep -o 'release [0-9.]*, V[0-9.]*')
# nvcc 12.4 compressed the sm90 image's machine code once it grew past 292
# kernels, and Digests reads uncompressed machine code only: an image
# without PTX is built with --no-compress where nvcc has it (12.4+). The
# sm80 image keeps nvcc's default (its PTX compressed, its SASS not).
nocompress=""
# (grep reads all of the help: with grep -q, nvcc could die of SIGPIPE and
# pipefail fail the test, which built a compressed image once)
if $NVCC --help 2>/dev/null | grep -- '--no-compress' >/dev/null; then nocompress="--no-compress"; fi
pids=()
while read -r file tag flags; do
  extra=""
  case "$flags" in *code=compute_*) ;; *) extra=$nocompress ;; esac
  ( $NVCC $flags $extra -DGR_ARCH="$tag" -I kernels/src -o "kernels/images/$file" kernels/src/instances_gen.cu \
      >"${LOGDIR:-/tmp}/ptxas-$tag.log" 2>&1 || { cat "${LOGDIR:-/tmp}/ptxas-$tag.log"; exit 1; } ) &
  pids+=($!)
done < <($GEN -images)
for p in "${pids[@]}"; do wait "$p"; done
$GEN -dir kernels -nvcc "$ver" -ptxas "${LOGDIR:-/tmp}"
grep -c "Compiling entry" "${LOGDIR:-/tmp}"/ptxas-*.log
grep -B1 -A0 spill "${LOGDIR:-/tmp}"/ptxas-*.log | grep -v ' 0 bytes spill' | grep spill || echo "no spills"
ls -l kernels/images/*.fatbin
