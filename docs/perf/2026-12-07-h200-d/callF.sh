# Twenty-second session, call F (any card; after call E, only if ws_wgmma_sk_ev_sh_ts passed its checks there): the
# corpus's seven weights tuned again at M = 257…4096 with the even-tail stream-K tiles among the candidates (our
# kernels only), into the committed table (callT's splice); then the README's shapes and the 64 between powers of two
# benched beside torch.mm with the committed table and the tuned one. call4.sh of 2026-12-07-h200-c with the range
# widened (it runs that script).
# Prediction (before the run): the tuner routes the default entry's buckets where the tail leaves SMs idle to
# sk_ev_sh_ts (at least [257, 512] and [1025, 2048]); the held-out weights' 257–1023 regime from 0.835 (callT, H100)
# to ≥ 0.87 and ≥ 1024 from 0.967 to ≥ 0.98; Llama-3-8B within 1 % of callT's tuned figures or better.
# usage: bash callF.sh   (carry .gpu-bin: r.txz as call E's)
LO=${LO:-257} HI=${HI:-4096} LIMIT=${LIMIT:-590} exec bash docs/perf/2026-12-07-h200-c/call4.sh
