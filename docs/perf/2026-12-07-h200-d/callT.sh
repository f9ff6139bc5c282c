# Twenty-second session, call T (any card): the corpus's seven weights tuned again at M = 257…2048 with the
# middle-aware autotune (a bucket chosen over its geometric middle too from M = 257 on), our kernels only, into
# the committed table; then the README's shapes and the 64 between powers of two benched beside torch.mm with the
# committed table and the tuned one, same kernels. call4.sh of 2026-12-07-h200-c with the range widened (it runs that script): the model
# gives 257…2048 ≈ 294 s on an H200 (call 5's 2049…4096 ran in 0.47× its modelled time on an H100).
# Prediction (before the run): the 257–1023 regime from 0.86 to ≥ 0.90 (Llama-3-8B) and from 0.79 to ≥ 0.85
# (held out), the mid-octave shapes gaining most (qkv M = 725 from ×0.63 to ≥ ×0.75), the powers of two within
# 2 % of the committed table's; the ≥ 1024 regime from 0.92 to ≥ 0.93 (Llama-3-8B) and 0.96 to ≥ 0.97 (held out),
# through M = 1449 and 2048; no regime at M ≤ 256 moves.
# usage: [LIMIT=SECONDS] [LO=257 HI=2048] bash callT.sh   (carry .gpu-bin: r.txz; writes buckets-hi.yaml, c.tgz)
LO=${LO:-257} HI=${HI:-2048} LIMIT=${LIMIT:-590} exec bash docs/perf/2026-12-07-h200-c/call4.sh
