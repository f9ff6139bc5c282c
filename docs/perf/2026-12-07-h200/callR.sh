# Nineteenth session, H200 only, after callE.sh passed: the committed table's routes measured again with the inline
# N-tail epilogue (160 kernels' digests moved, 222 of 652 buckets name one of them), then compared with the committed
# table (docs/perf/2026-12-06-h200-d/callR.sh: autotune tune -base-routes -vendor=false, autotune compare).
# usage: bash callR.sh [SECONDS]   (carry .gpu-bin: r.txz has this build's autotune)
set -uo pipefail
python3 -c "import tarfile; tarfile.open('.gpu-bin/r.txz').extractall()"
export GEMMROUTE_KERNEL_DIR=$PWD/kernels
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
case "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" in
  *H200*) bash docs/perf/2026-12-06-h200-d/callR.sh "${1:-580}" ;;
  *) echo "not the H200: the table is the H200's; no retime here" ;;
esac
