# Nineteenth session, call 3: on the H200 the table retime that lands the N-tail fix (callR.sh); on any other card
# the prologue experiment (callP.sh). Carry .gpu-bin (r.txz: autotune and the shape lists; p.txz: the kbench builds).
# usage: bash docs/perf/2026-12-07-h200/call3.sh
case "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" in
  *H200*) bash docs/perf/2026-12-07-h200/callR.sh "${L:-540}" ;;
  *) bash docs/perf/2026-12-07-h200/callP.sh ;;
esac
