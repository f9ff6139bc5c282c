// The families over ws_wgmma.cuh (sm_90a, warp-specialized): their
// descriptors, the ring and staging sizes they share, and ws_wgmma's
// template arguments with the checks that mirror its static_asserts.

package main

import (
	"errors"
	"fmt"
	"slices"

	"github.com/gemmroute/gemmroute/kernels"
)

// wsWGMMA: ws_wgmma.cuh (sm_90a), warp-specialized: TMA loads into a ring
// of shared-memory stages guarded by mbarriers, a producer warpgroup and one
// or two wgmma consumer warpgroups, A's rows (tokens) on wgmma's 64-row
// side; for M ≳ 256. Measured 0.82–0.95 of the roofline at M ≥ 1024 on the
// H200 (docs/perf/2026-12-01-h200-tma, v4); tile order as raster's.
var wsWGMMA = wsFamily("ws_wgmma", wsModel, rowScalings)

// wsModel is the model of the ws_wgmma kernels with A's rows on wgmma's
// 64-row side.
var wsModel = model{kind: kernels.ModelTiled, rateShare: tileShare(0.85), streamShare: 0.9, rasterGroup: rasterGroup}

// wsWGMMASwap: the same template with SWAP: the weights on wgmma's 64-row
// side and the BM tokens on its N (16…256), for skinny M: each block streams
// its BN weight rows once per token tile. Measured 0.55–0.86 of the read
// roofline at M = 32…256 on the H200 (v4); tensor rate about 0.6 of the
// peak at M = 256.
var wsWGMMASwap = wsSwapFamily("ws_wgmma_swap", wsSwapModel, rowScalings)

// wsSwapModel is the model of the ws_wgmma kernels with SWAP.
var wsSwapModel = model{kind: kernels.ModelDecode, rateShare: flatShare(0.6), streamShare: 0.85, rasterGroup: 1}

// wsWGMMAPP: the same template with PP, ping-pong consumers (each takes
// whole 128-row tiles, alternately, so one's epilogue overlaps the other's
// main loop) under a persistent grid, for large M. Measured 5–8 % faster
// than ws_wgmma's best at M ≥ 1024, K = 4096 in e4m3 on the H200
// (docs/perf/2026-12-01-h200-fp8, call 4), and 0.92 against 0.90 of cuBLAS
// in bf16 (docs/perf/2026-12-01-h200-tma, v6).
var wsWGMMAPP = wsPingPong(wsFamily("ws_wgmma_pp", model{kind: kernels.ModelTiled, rateShare: tileShare(0.9), streamShare: 0.9, rasterGroup: rasterGroup}, rowScalings))

// wsPingPong makes f a family of ping-pong consumers (PP) under a
// persistent grid.
func wsPingPong(f family) family {
	f.persistent = true
	return wsWith(f, wsCons, "gr::ws_pingpong")
}

// wsWGMMAMC2 and wsWGMMAPPMC2: ws_wgmma and ws_wgmma_pp with MC = 2,
// clusters of two blocks along M under a persistent grid: a cluster takes
// two consecutive M tiles of one N tile, and each block loads half of the
// shared B box into both blocks' shared memory (TMA multicast), halving the
// weights' L2 traffic. Measured on the H200 (docs/perf/2026-12-01-h200-mc,
// call 2): the best candidate at 11 of 18 shapes with M ≥ 1024 and K ≥
// 4096, large-M ×cuBLAS 0.91 → 0.94.
var (
	wsWGMMAMC2   = wsMulticast(wsFamily("ws_wgmma_mc2", model{kind: kernels.ModelTiled, rateShare: tileShare(0.88), streamShare: 0.9, rasterGroup: 2 * rasterGroup}, rowScalings))
	wsWGMMAPPMC2 = wsMulticast(wsPingPong(wsFamily("ws_wgmma_pp_mc2", model{kind: kernels.ModelTiled, rateShare: tileShare(0.9), streamShare: 0.9, rasterGroup: 2 * rasterGroup}, rowScalings)))
)

// wsMulticast makes f a family of two-block clusters under a persistent
// grid, each block's B box half the tile's N.
func wsMulticast(f family) family {
	f.persistent, f.cluster = true, 2
	f.tmaBox = func(t tile) [2]int { return [2]int{t.bm, t.bn / 2} }
	return f
}

// wsWGMMAMC2N: ws_wgmma with clusters of two blocks along N (SCHED =
// ws_schedule_n) under a persistent grid: a cluster takes two consecutive N
// tiles of one M tile, and each block loads half of the shared A box (the
// tokens) into both blocks' shared memory. For mid M, where every block
// reads the same few token rows: cuBLAS's nvjet 96x64 1×2 at M = 128
// (docs/perf/2026-12-02-h200-b, call 1). Experimental: correct (kbench
// check, memcheck, the awkward table), best at M = 64 on four weights,
// slower than no cluster at M = 128 (docs/perf/2026-12-02-h200-c, call 1).
var wsWGMMAMC2N = func() family {
	f := wsFamily("ws_wgmma_mc2n", wsModel, nil)
	f.persistent, f.cluster, f.clusterAlongN = true, 2, true
	f.tmaBox = func(t tile) [2]int { return [2]int{t.bm / 2, t.bn} }
	return wsWith(f, wsSched, "gr::ws_schedule_n")
}()

// wsWGMMATS, wsWGMMAMC2TS and wsWGMMAMC2NTS: ws_wgmma, ws_wgmma_mc2 and
// ws_wgmma_mc2n with the TMA-store epilogue (EPI = gr::ws_epi_tma, issue 17
// item 2): each consumer stages its 64 x BN part of D in shared memory and
// one thread stores it by TMA while the consumer goes on to its next tile.
// On the H200 (docs/perf/2026-12-02-h200-c, call 1) ncu finds our register
// epilogue's stores "50 % excessive sectors" and cuBLAS's nvjet kernels,
// which stage D, run the tensor pipe at 83–93 % against our 70–81 %. The
// staging buffer (64·BN·2 bytes per consumer) costs a ring stage or two.
// ws_wgmma_ts is persistent (the overlap needs several tiles a block).
// Measured on the H200 (docs/perf/2026-12-02-h200-d, calls 1–5): correct
// once the planner keeps them to rows ending on a 16-byte boundary, 2–8 %
// faster than their register twins at M = 4096, chosen by the large-M tune
// in 10 of 24 buckets. Experimental (a measured table entry routes to
// them); the models are their register twins'.
var (
	wsWGMMATS     = wsTMAStore(wsFamily("ws_wgmma_ts", wsModel, rowScalings), true)
	wsWGMMAMC2TS  = wsTMAStore(wsMulticast(wsFamily("ws_wgmma_mc2_ts", wsWGMMAMC2.model, nil)), true)
	wsWGMMAMC2NTS = wsTMAStore(renamed(wsWGMMAMC2N, "ws_wgmma_mc2n_ts"), true)
)

// wsWGMMAPPTS and wsWGMMAPPMC2TS: the ping-pong consumers (alone and in
// clusters along M) with the TMA-store epilogue, each consumer's two 64-row
// blocks through its staging buffer in turn. Why: at M = 1024 × 14336 ×
// 4096 the cooperative 128x224 (both consumers on one tile, so both stop
// for its epilogue) spent ≈ 7 k cycles a tile with the tensor cores idle,
// cuBLAS ≈ 1.2 k (docs/perf/2026-12-06-h200-c, call 3, H100); ping-pong
// hides one consumer's epilogue behind the other's main loop, and the
// register-epilogue twin ran 175 µs there, level with our best.
// Experimental: correct, 0.92× the register `ws_wgmma_pp`'s time and no
// faster than `ws_wgmma_pp_mc2` (docs/perf/2026-12-06-h200-c, call 4).
var (
	wsWGMMAPPTS    = wsTMAStore(renamed(wsWGMMAPP, "ws_wgmma_pp_ts"), true)
	wsWGMMAPPMC2TS = wsTMAStore(renamed(wsWGMMAPPMC2, "ws_wgmma_pp_mc2_ts"), true)
)

// wsWGMMARNTS and wsWGMMARNMC2NTS: ws_wgmma_ts and ws_wgmma_mc2n_ts with
// REL = gr::ws_release_now (ws_ring.cuh): a consumer gives its stage back
// once the k-tile's own wgmma retire rather than one k-tile later, a stage
// more of lead for the producer. Why: with three stages (the TMA store's
// staging buffer takes the fourth) our consumers waited for data in 29 % of
// ncu's samples at 4096 × 14336 × 4096 and cuBLAS's hardly at all
// (docs/perf/2026-12-06-h200-b, call 2). Measured there on an H100 (call 4,
// kbench instances): tensor pipe 86.1 → 92.1 % for mc2n_ts 256x160 (cuBLAS
// 92.9 %), 85.0 → 89.6 % for ts 128x256, 3–5 % faster by graph replay; the
// four-stage ts 256x128 gained nothing, so only the three-stage tiles have
// them. Experimental (a measured table entry routes to them); the same K
// order as their twins, so the same reduction class (stream-K has none).
// wsWGMMARNMC2TS and wsWGMMARNSKTS (and rn_mc2n_ts 128x256): the same for
// the 128x256 tiles in clusters along M and N and under stream-K, which the
// H200's 1025…2048 tune chose for three of its eight buckets, rn_ts 128x256
// for a fourth (docs/perf/2026-12-06-h200-b, call 6). Experimental: correct
// on an H100 (docs/perf/2026-12-06-h200-c, call 1).
// The same descriptors as their twins: the policy changes when a stage is
// given back, nothing the filter or the model reads.
var (
	wsWGMMARNTS     = wsWith(renamed(wsWGMMATS, "ws_wgmma_rn_ts"), wsRel, "gr::ws_release_now")
	wsWGMMARNMC2TS  = wsWith(renamed(wsWGMMAMC2TS, "ws_wgmma_rn_mc2_ts"), wsRel, "gr::ws_release_now")
	wsWGMMARNMC2NTS = wsWith(renamed(wsWGMMAMC2NTS, "ws_wgmma_rn_mc2n_ts"), wsRel, "gr::ws_release_now")
	wsWGMMARNSKTS   = wsWith(renamed(wsWGMMASKTS, "ws_wgmma_rn_sk_ts"), wsRel, "gr::ws_release_now")
)

// wsWGMMALPTS and wsWGMMASwapLPTS: the e4m3 TMA-store tiles with REL =
// gr::ws_promote_lagged (ws_accumulate.cuh; issue 20 item 1): a consumer
// keeps two sets of chains in turn and promotes k-tile kt − 1's into fp32
// while kt's wgmma run, instead of waiting for each k-tile's wgmma before
// its promotion, the tensor cores idle meanwhile. Why: at M ≥ 1024 the
// promoted kernels reach 900–1030 TFLOP/s on the H200 where _scaled_mm
// reaches ~1250 (issue 20). Tensor and row scales only; the 128-column
// tiles and the swap tiles up to 32 tokens, where twice the chains fit the
// consumers' registers. The parts are added in k-tile order as without the
// lag: the same class as their twins. Experimental: correct (check,
// memcheck) and 0–12 % slower than their twins on an H100 at M = 32…4096
// (docs/perf/2026-12-06-h200-f, call 1): the wait before a promotion is
// not what holds the e4m3 kernels back.
var (
	wsWGMMALPTS     = wsWith(renamed(wsWGMMATS, "ws_wgmma_lp_ts"), wsRel, "gr::ws_promote_lagged")
	wsWGMMASwapLPTS = wsWith(renamed(wsWGMMASwapTS, "ws_wgmma_swap_lp_ts"), wsRel, "gr::ws_promote_lagged")
)

// wsWGMMAExTS and wsWGMMASwapExTS: ws_wgmma_ts and ws_wgmma_swap_ts with
// EPI = gr::ws_epi_tma_early (ws_epilogue_tma.cuh): a consumer exits once
// its last stores have read the staging buffer, not once they complete, as
// CUTLASS's TMA-store epilogues do. Why: at o (4096 rows), M = 64, K =
// 512…8192, our tiles stream K faster than cuBLAS (3.02 against 3.29 µs
// per 1k K) but pay 1.1 µs more per GEMM (2.94 against 1.81 µs of fixed
// cost; docs/perf/2026-12-06-h200-f, call 1, H100), and waiting for the
// writes' round trip is in every TMA-store block's exit. Experimental, not
// yet run; the same arithmetic as their twins (the same class).
var (
	wsWGMMAExTS     = wsWith(renamed(wsWGMMATS, "ws_wgmma_ex_ts"), wsEpi, "gr::ws_epi_tma_early")
	wsWGMMASwapExTS = wsWith(renamed(wsWGMMASwapTS, "ws_wgmma_swap_ex_ts"), wsEpi, "gr::ws_epi_tma_early")
)

// wsWGMMASKTS: ws_wgmma_sk with the TMA-store epilogue — the stream-K
// tiles (M ≈ 257…1024, where the partial last wave is split along K) whose
// finishing block stores its tile through TMA. The partials between blocks
// stay fp32 in the workspace (ws_streamk.cuh); only the finished tile is
// staged. Why: at M = 1024, N = 4096 the register epilogue of the 128x256
// tile costs 5.7 µs more than the TMA store at K = 64 and 6.9 µs at K =
// 4096 (docs/perf/2026-12-04-h200, call 1). Experimental (a measured table entry
// routes to it; every kernel passes the engine's awkward table on an H100, docs/perf/2026-12-06-h200-c call 7).
var wsWGMMASKTS = wsTMAStore(renamed(wsWGMMASK, "ws_wgmma_sk_ts"), true)

// wsTMAStore makes f a family whose kernels store D through TMA, with the
// staging buffer in their shared memory; persistent sets KernelSpec.Persistent.
func wsTMAStore(f family, persistent bool) family {
	f.tmaStoreBox, f.persistent = tmaStoreBox, f.persistent || persistent
	f.ws.policies[wsEpi] = "gr::ws_epi_tma"
	// a 64 x BN staging buffer per consumer: one for BM = 64, two above
	f.smemBytes = func(t tile, elem int) int { return wsSmemBytes(t, elem) + min(t.bm, 128)*t.bn*2 }
	return f
}

// wsWGMMASwapTS: ws_wgmma_swap with the TMA-store epilogue — each consumer
// stages its 64 weight columns of D for the tile's BM tokens (transposed,
// ws_epilogue_tma_nm) and stores them by one TMA store; split-K partials
// take the register path. Why: the swap tiles serve M = 17…256, where the
// non-swap tiles' TMA store gained 2–3 µs (docs/perf/2026-12-04-h200, call
// 2), and their register epilogue writes one 2-byte element a store.
// Dispatch grid, as its register twin. Experimental (a measured table entry
// routes to it; every kernel passes the engine's awkward table on an H100, docs/perf/2026-12-06-h200-c call 7).
var wsWGMMASwapTS = wsSwapTMAStore(wsSwapFamily("ws_wgmma_swap_ts", wsSwapModel, rowScalings))

// wsWGMMASwapWFTS: ws_wgmma_swap_ts with a wave-fitted token side (104,
// 136, 152, 176 or 208 tokens; 128 or 192 weight rows, the latter three
// consumers), for M ≥ 257: ceil(M/BM) token tiles end just past M, so the
// tiles fill the SMs' waves, as cuBLAS's nvjet tiles there (weights ×
// tokens 128x136 at o, M = 513: 4 × 32 tiles; 192x176 at M = 1025: 6 × 22;
// docs/perf/2026-12-05-h200, call 2), where our 128-row token tiles compute
// 640 rows for 513. A family of its own for the model: tiles of the large-M
// size, read in ws_wgmma's grouped raster, so the tiled model (the swap
// model counts a weight pass per token tile and a 0.6 rate share, and the
// tuner would prune them). Experimental (a measured table entry routes to
// it; every kernel passes the engine's awkward table on an H100, docs/perf/2026-12-06-h200-c call 7).
var wsWGMMASwapWFTS = func() family {
	f := wsSwapTMAStore(wsSwapFamily("ws_wgmma_swap_wf_ts", wsModel, rowScalings))
	f.ws.waveFitted = true
	return f
}()

// waveFitted are the token widths of ws_wgmma_swap_wf_ts.
var waveFitted = []int{104, 136, 152, 176, 208}

// wsWGMMASwapSqTS: ws_wgmma_swap_ts with its wgmma steps in one
// accumulator chain (NACC = 1) rather than the four or two that hide
// wgmma's latency at n16…n128: the K order of ws_wgmma_ts, so the reduction
// class wgmma16.seq (issue 21). Why: the batch-invariant mode runs one class
// at every M, and wgmma16.seq had no tile with the tokens on wgmma's N, so
// at M ≤ 16 it ran 64-row token tiles (Llama-3-8B o at M = 1: mc2n 64x64 at
// split-K 2, 21.7 µs against the normal mode's 13.4; docs/perf/2026-12-08-h100,
// call V, H100). Experimental, not yet run: TestReductionClassesAgree must
// find it agreeing with its class before a tune may choose it for the mode.
var wsWGMMASwapSqTS = func() family {
	f := wsSwapTMAStore(wsSwapFamily("ws_wgmma_swap_sq_ts", wsSwapModel, nil))
	f.ws.seqAcc = true
	return f
}()

// wsWGMMASwapSKTS: ws_wgmma_swap_sk (stream-K: a tile's K split among
// blocks, summed in the kernel in a fixed order) with the TMA store of the
// finished tile: the mid-M routes that split K today (o at M = 64…128,
// ×0.79–0.81 of cuBLAS) pay the fp32 partials' round trip through the
// workspace and a second launch. Experimental (a measured table entry
// routes to it; every kernel passes the engine's awkward table on an H100, docs/perf/2026-12-06-h200-c call 7).
var wsWGMMASwapSKTS = wsSwapTMAStore(wsStreamK(wsSwapFamily("ws_wgmma_swap_sk_ts", wsSwapModel, rowScalings)))

// wsWGMMASwapMC2 and wsWGMMASwapMC2TS: ws_wgmma_swap and ws_wgmma_swap_ts
// with MC = 2, clusters of two token tiles along M under a persistent grid,
// each block loading half of the shared weight box into both blocks' shared
// memory (TMA multicast). cuBLAS's choice at o (N = K = 4096), M = 64: nvjet
// 64x32 (weights × tokens), 16 stages, cluster 1×2, 128 blocks, 8.6 µs in
// the profiler (docs/perf/2026-12-02-h200-b, call 1); every tile of ours
// there, clusters sharing the tokens included, runs 14.1–15 µs by graph
// replay against cuBLAS's 11.1 (docs/perf/2026-12-04-h200-b, call 1).
// Experimental: correct on the H200, and no faster there — swap_mc2_ts
// 32x64 at o M = 64 13.88 µs against swap 32x64's 14.58 and ts 64x96's
// 13.52; the best of no shape timed (docs/perf/2026-12-04-h200-c, call 0).
var (
	wsWGMMASwapMC2   = wsMulticast(wsSwapFamily("ws_wgmma_swap_mc2", wsSwapModel, nil))
	wsWGMMASwapMC2TS = wsSwapTMAStore(wsMulticast(wsSwapFamily("ws_wgmma_swap_mc2_ts", wsSwapModel, nil)))
)

// wsWGMMAShTS and wsWGMMASwapShTS: ws_wgmma_ts and ws_wgmma_swap_ts under
// ws_schedule_shift, whose last token tile, where it would reach past M
// (and M ≥ BM), starts at M − BM: no row past M is loaded, and the rows it
// shares with the tile before it are stored twice with the same values.
// The tiles with split-K 1 ran 20–60 % slower where most of the last token
// tile's rows lay past M than on the same grid with few (ts 64x96 at o:
// 18.1 µs at M = 65, 14.3 at 91; 21.7 at 129, 13.6 at 182:
// docs/perf/2026-12-04-h200-c, call 0), and loading those rows in 16-row
// boxes, those past M left out, was slower everywhere (24.5 µs at M =
// 64…182; the same call). Experimental: correct and bit-identical to their
// twins on the H200; o M = 65 17.9 → 13.9 µs, M = 129 21.5 → 14.1; routed
// by measured entries at M = 65…256 (docs/perf/2026-12-04-h200-c, calls 3
// and 4).
var (
	wsWGMMAShTS     = wsTMAStore(wsWith(wsFamily("ws_wgmma_sh_ts", wsModel, nil), wsSched, "gr::ws_schedule_shift"), true)
	wsWGMMASwapShTS = wsSwapTMAStore(wsWith(wsSwapFamily("ws_wgmma_swap_sh_ts", wsSwapModel, nil), wsSched, "gr::ws_schedule_shift"))
)

// wsWGMMASKShTS: ws_wgmma_sk_ts under ws_stream_k_shift, the stream-K walk
// with the last token tile shifted as above: the tiles that serve M =
// 257…2048, where the shapes between powers of two leave the last token
// tile partly past M (M = 1449: 87 of 128 rows). Its M tiles are walked from
// the last one, the shifted tile and the one before split alike
// (ws_streamk.cuh; docs/perf/2026-12-07-h200-i). Experimental, as the large
// sh_ts tiles beside them (a measured table entry routes to them; every kernel passes the engine's awkward table on an H100, docs/perf/2026-12-06-h200-c call 7).
var wsWGMMASKShTS = wsWith(renamed(wsWGMMASKTS, "ws_wgmma_sk_sh_ts"), wsSched, "gr::ws_stream_k_shift")

// wsWGMMASKTPShTS: ws_wgmma_sk_sh_ts under ws_stream_k_parts_shift, whose
// tail tiles are split into the plan's S parts (Params.TailParts, dispatch's
// cost model over the tail's waves and the finisher's read-back), several
// parts a block where R·S exceeds the grid, numbered part-major so that the
// blocks running at one time read one k range of the weights: where
// ws_stream_k's S = ⌊G/R⌋ makes the finisher of a small tail read back tens
// of partial tiles (mistral-nemo o, M = 600: 84.7 µs, cuBLAS 35.8), and a
// tail of more than G/2 tiles runs whole, a partial wave. Its M tiles are
// walked from the last one, so that the shifted tile and the one before
// are split alike (ws_streamk.cuh). Experimental (correct on an H100:
// docs/perf/2026-12-07-h200-f, and the 256-row tiles docs/perf/2026-12-07-h200-h).
var wsWGMMASKTPShTS = func() family {
	f := wsWith(renamed(wsWGMMASKTS, "ws_wgmma_sk_tp_sh_ts"), wsSched, "gr::ws_stream_k_parts_shift")
	f.tailParts = true
	return f
}()

// wsWGMMAKSTS: ws_wgmma_ts under ws_split_fixed (ws_splitfixed.cuh): every
// tile split along K into the plan's S parts (Params.TailParts) over the
// workspace split-K's K ranges, the parts summed in the kernel in the
// reduce's order — a block a part where they fit the grid (the last part
// of a tile to arrive sums them), else each block running its tiles' parts
// in order with the running sum in its own slot; no block waits for
// another: the split-K of a reduction class (issue 21, the batch-invariant
// mode) at any M, where the workspace split-K's M·N·S·4 bytes of partials
// do not fit. The same reduction class as ws_wgmma_ts (split-K is the
// planner's). Experimental (correct on an H100: docs/perf/2026-12-07-h200-h,
// calls E and F).
var wsWGMMAKSTS = func() family {
	f := wsWith(renamed(wsWGMMATS, "ws_wgmma_ks_ts"), wsSched, "gr::ws_split_fixed")
	f.persistent, f.splitFixed = true, true
	return f
}()

// wsSwapTMAStore makes swap family f store D through TMA: a BM x 64 staging
// buffer per consumer (BN / 64 consumers), boxes of 64 x BM.
func wsSwapTMAStore(f family) family {
	f.tmaStoreBox = swapTMAStoreBox
	f.ws.policies[wsEpi] = "gr::ws_epi_tma"
	f.smemBytes = func(t tile, elem int) int { return wsSmemBytes(t, elem) + t.bm*t.bn*2 }
	return f
}

// wsWGMMAB128TS and wsWGMMASwapB128TS: the 128-block e4m3 kernels with the
// TMA store (the scales are applied in the main loop, so the epilogue is
// the 16-bit kernels'). The e4m3 kernels at M ≥ 1024 run at 0.6–0.76× of
// _scaled_mm, where the register epilogue's 5.7 µs (16-bit, M = 1024, N =
// 4096: docs/perf/2026-12-04-h200, call 1) is a larger share of a GEMM half
// as long. Experimental, as the per-tensor and per-row e4m3 TMA-store
// instances of ws_wgmma_ts and ws_wgmma_swap_ts (a measured table entry
// routes to them; every kernel passes the engine's awkward table on an H100, docs/perf/2026-12-06-h200-c call 7).
var (
	wsWGMMAB128TS     = wsTMAStore(wsFamily("ws_wgmma_b128_ts", wsModel, []kernels.Scaling{kernels.ScalingBlock}), true)
	wsWGMMASwapB128TS = wsSwapTMAStore(wsSwapFamily("ws_wgmma_swap_b128_ts", wsSwapModel, []kernels.Scaling{kernels.ScalingBlock}))
)

// wsWGMMASK and wsWGMMASwapSK: ws_wgmma and ws_wgmma_swap under the
// stream-K scheduler (ws_streamk.cuh): one block per SM shares the k-tiles
// of all tiles evenly, split tiles summed in the kernel in a fixed order —
// for the shapes whose tiles leave a partial last wave (M ≈ 257…1024) or
// fewer tiles than SMs (mid M, small N). Measured on the H200
// (docs/perf/2026-12-01-h200-sk, call 3): up to 1.12× the best
// data-parallel kernel at M = 512…1024 on N = 5120, K = 13824, no gain or a
// loss where the tiles fill the waves; the model counts their waves.
var (
	wsWGMMASK     = wsStreamK(wsFamily("ws_wgmma_sk", wsModel, rowScalings))
	wsWGMMASwapSK = wsStreamK(wsSwapFamily("ws_wgmma_swap_sk", wsSwapModel, rowScalings))
)

// wsWGMMAIL: ws_wgmma under ws_schedule_il (interleaved split-K): split z
// of S reads k-tiles z, z + S, …, so the S blocks of a tile read adjacent
// 128-byte pieces of the same weight rows together, where contiguous splits
// read S distant K ranges (qkv N = 6144, K = 4096, M = 128 on the H200: 128x96
// split 2 took 22 µs against 17.1 unsplit for 64x96, cuBLAS 15.9).
// Experimental: correct on the H200, no faster than split-K in blocks
// (docs/perf/2026-12-02-h200-d, call 1); the model is ws_wgmma's.
var wsWGMMAIL = func() family {
	f := wsFamily("ws_wgmma_il", wsModel, nil)
	f.interleavedSplitK = true
	f.ws.policies[wsSched] = "gr::ws_schedule_il"
	return f
}()

// wsWGMMARP, wsWGMMASwapRP, wsWGMMASKRP and wsWGMMASwapSKRP: the same
// kernels for problems whose pointers, leading dimensions or K rule out TMA
// (N = 769, K = 5125 ran on the cp.async kernels at 0.52–0.81 of cuBLAS on
// the H200): the plan's first launch copies A and B to the workspace at a
// 16-byte pitch (repack.cuh). Experimental (a measured table entry routes to
// them; every kernel passes the engine's awkward table on an H100, docs/perf/2026-12-06-h200-c call 7).
var (
	wsWGMMARP       = wsRepack(wsFamily("ws_wgmma_rp", wsModel, nil))
	wsWGMMASwapRP   = wsRepack(wsSwapFamily("ws_wgmma_swap_rp", wsSwapModel, nil))
	wsWGMMASKRP     = wsRepack(wsStreamK(wsFamily("ws_wgmma_sk_rp", wsModel, nil)))
	wsWGMMASwapSKRP = wsRepack(wsStreamK(wsSwapFamily("ws_wgmma_swap_sk_rp", wsSwapModel, nil)))
)

// wsRepack makes f a family of repack variants: element-aligned instances
// that run on the repack kernel's copies.
func wsRepack(f family) family {
	f.repack, f.elementLoads = true, true
	return f
}

// repackKernel is repack.cuh's kernel: it copies a 16-bit GEMM's A and B
// to the workspace at a 16-byte pitch; every repack variant's manifest
// entry names it. It is built into the sm_90a image only (the TMA kernels').
var repackKernel = struct {
	header, template, suffix string
	threads                  int
}{header: "repack.cuh", template: "gr::repack_b16", suffix: "repack_b16", threads: 256}

// wsStreamK makes f a stream-K family: persistent, no split-K factor.
func wsStreamK(f family) family {
	f.persistent, f.streamK, f.maxSplitK = true, true, 1
	f.ws.policies[wsSched] = "gr::ws_stream_k"
	return f
}

// wsWGMMAB128 and wsWGMMASwapB128: the same template with B128, e4m3 with
// 128-block scales (1×128 of A, 128×128 of B), promoted to fp32 at every
// 128-element k-tile. Not yet measured: the model is their unscaled twins'.
var (
	wsWGMMAB128     = wsFamily("ws_wgmma_b128", wsModel, []kernels.Scaling{kernels.ScalingBlock})
	wsWGMMASwapB128 = wsSwapFamily("ws_wgmma_swap_b128", wsSwapModel, []kernels.Scaling{kernels.ScalingBlock})
)

// wsFamily is a family over ws_wgmma.cuh: TMA boxes of BM and BN rows,
// split-K through the workspace, 64-bit offsets, one block per SM; with
// block scales among its scalings, SCALES = ws_scales_block128.
func wsFamily(name string, m model, scalings []kernels.Scaling) family {
	f := family{
		name: name, header: "ws_wgmma.cuh", template: "gr::ws_wgmma",
		depth: smemStages, sm90a: true, minBlocks: 1,
		smemBytes: wsSmemBytes, loadBytes: tiledLoadBytes,
		maxSplitK: 16, indexBits: 64,
		tmaBox:   func(t tile) [2]int { return [2]int{t.bm, t.bn} },
		model:    m,
		scalings: scalings,
		ws:       wsSpec{policies: wsDefaultPolicies},
	}
	if slices.Contains(scalings, kernels.ScalingBlock) {
		f = wsWith(f, wsScales, "gr::ws_scales_block128")
	}
	return f
}

// wsSwapFamily is a family over ws_wgmma.cuh with ROLE = ws_swap_ab: the
// weights on wgmma's 64-row side, the BM tokens on its N.
func wsSwapFamily(name string, m model, scalings []kernels.Scaling) family {
	return wsWith(wsFamily(name, m, scalings), wsRole, "gr::ws_swap_ab")
}

// wsSpec is what a family over ws_wgmma.cuh fixes of the template: its
// policies, ROLE, CONS, SCALES, SCHED, EPI and REL in the template's order
// (wsRole…wsRel); waveFitted marks the swap tiles whose token side is one
// of waveFitted (a family of its own for the model); seqAcc keeps a swap
// tile's wgmma steps in one accumulator chain (NACC = 1). The rest of the
// variant is in the descriptor's launch fields (clusters, stream-K,
// repack): wsWGMMAArgs's methods read it from there.
type wsSpec struct {
	policies   [wsPolicies]string
	waveFitted bool
	seqAcc     bool
}

// The policies' places in wsSpec.policies and in ws_wgmma's template
// arguments (after MC): which operand is on wgmma's 64-row side
// (ws_roles.cuh), how consumers share tiles (ws_roles.cuh), where e4m3's
// scales apply (ws_accumulate.cuh), the tile scheduler (ws_schedule.cuh,
// ws_streamk.cuh), the epilogue (ws_epilogue_tma.cuh), when a stage goes
// back (ws_ring.cuh, ws_accumulate.cuh).
const (
	wsRole = iota
	wsCons
	wsScales
	wsSched
	wsEpi
	wsRel
	wsPolicies
)

// wsWith is f with policy i (wsRole…wsRel) set to p.
func wsWith(f family, i int, p string) family {
	f.ws.policies[i] = p
	return f
}

// wsSmemBytes: STAGES stages of KB boxes (128 bytes of K) of A and B, and
// 1024 bytes to align them.
func wsSmemBytes(t tile, elem int) int { return t.depth*(t.bm+t.bn)*t.bk*elem + 1024 }

// wsWGMMAArgs: ws_wgmma<T, TOut, BM, BN, STAGES, NACC, KB, MC, ROLE, CONS,
// SCALES, SCHED, EPI, REL> for family f, which fixes the variant (MC and
// the policies: wsSpec and the descriptor's launch fields).
// The generator fixes NACC by the wgmma N (independent accumulator chains
// where they fit: 4 up to n96, 2 at n128, else 1; one for the wave-fitted
// widths and the sequential swap tiles); KB boxes of 128 bytes make the k-tile 64·KB (16-bit) or 128·KB
// (e4m3) elements.
type wsWGMMAArgs struct {
	f                  *family
	bm, bn, stages, kb int
	fp8                bool
}

func (a wsWGMMAArgs) family() *family { return a.f }

// The variant, as the family's descriptor states it: the tokens on wgmma's
// N (swap), ping-pong consumers (pp), 128-block scales (b128), clusters of
// two along M (mc2, multicast of B) or N (mc2n, of A), the stream-K
// scheduler (sk) with the plan's tail split (tp), every tile split in the
// plan's parts and summed in the kernel (ks), the repack variant (rp: the same template; the plan
// copies the operands first), D staged and stored by TMA (ts), interleaved
// split-K (il), the last token tile moved back to end at M (sh), a
// wave-fitted token side (wf), stages given back once a k-tile's wgmma
// retire (rn), e4m3 promotion of k-tile kt − 1 while kt's wgmma run (lp),
// consumers that exit once their last TMA stores have read the staging
// buffer rather than completed (ex), one accumulator chain on a swap tile
// (sq).
func (a wsWGMMAArgs) swap() bool { return a.f.ws.policies[wsRole] == "gr::ws_swap_ab" }
func (a wsWGMMAArgs) pp() bool   { return a.f.ws.policies[wsCons] == "gr::ws_pingpong" }
func (a wsWGMMAArgs) wf() bool   { return a.f.ws.waveFitted }
func (a wsWGMMAArgs) sq() bool   { return a.f.ws.seqAcc }
func (a wsWGMMAArgs) b128() bool { return a.f.ws.policies[wsScales] == "gr::ws_scales_block128" }
func (a wsWGMMAArgs) mc2() bool  { return a.f.cluster == 2 && !a.f.clusterAlongN }
func (a wsWGMMAArgs) mc2n() bool { return a.f.cluster == 2 && a.f.clusterAlongN }
func (a wsWGMMAArgs) sk() bool   { return a.f.streamK }
func (a wsWGMMAArgs) tp() bool   { return a.f.tailParts }
func (a wsWGMMAArgs) ks() bool   { return a.f.splitFixed }
func (a wsWGMMAArgs) rp() bool   { return a.f.repack }
func (a wsWGMMAArgs) ts() bool   { return a.f.tmaStoreBox != nil }
func (a wsWGMMAArgs) ex() bool   { return a.f.ws.policies[wsEpi] == "gr::ws_epi_tma_early" }
func (a wsWGMMAArgs) il() bool   { return a.f.interleavedSplitK }
func (a wsWGMMAArgs) sh() bool {
	return slices.Contains([]string{"gr::ws_schedule_shift", "gr::ws_stream_k_shift", "gr::ws_stream_k_parts_shift"}, a.f.ws.policies[wsSched])
}
func (a wsWGMMAArgs) rn() bool { return a.f.ws.policies[wsRel] == "gr::ws_release_now" }
func (a wsWGMMAArgs) lp() bool { return a.f.ws.policies[wsRel] == "gr::ws_promote_lagged" }

// wgmmaN are the N that wgmma_sm90.cuh writes operand lists for: powers of
// two, 96, the wave-fitted token widths 104…208 and 160 (BM = 256's
// weight side at large M).
var wgmmaN = []int{16, 32, 64, 96, 104, 128, 136, 152, 160, 176, 192, 208, 224, 256}

// rows is wgmma's 64-row side of the tile, cols its N.
func (a wsWGMMAArgs) rows() int {
	if a.swap() {
		return a.bn
	}
	return a.bm
}
func (a wsWGMMAArgs) cols() int {
	if a.swap() {
		return a.bm
	}
	return a.bn
}

// consumers is the consumer warpgroups: one per 64 rows of wgmma's 64-row
// side (one to three), or two of 128 (two 64-row blocks each) when BM = 256.
func (a wsWGMMAArgs) consumers() int {
	if a.rows() == 256 {
		return 2
	}
	return a.rows() / 64
}
func (a wsWGMMAArgs) tile() tile {
	return tile{bm: a.bm, bn: a.bn, bk: 128 / elemBytes(a.fp8) * a.kb, warps: (a.consumers() + 1) * 4, depth: a.stages, aligned: !a.rp()}
}
func (a wsWGMMAArgs) nacc() int {
	switch {
	case !a.swap() || a.wf() || a.sq() || a.cols() > 128:
		return 1
	case a.cols() == 128:
		return 2
	}
	return 4
}
func (a wsWGMMAArgs) values() []any { return a.templateArgs(false) }

// wsDefaultPolicies are ws_wgmma's default policies (wsRole…wsRel).
var wsDefaultPolicies = [wsPolicies]string{"gr::ws_ab", "gr::ws_cooperative", "gr::ws_scales_after", "gr::ws_schedule", "gr::ws_epi_reg", "gr::ws_release_late"}

// templateArgs is ws_wgmma's template arguments after T and TOut: the
// tile's numbers (BM, BN, STAGES, NACC, KB, MC), then the policies from the
// family's descriptor: with named, every policy even where it is the
// default (the kernel bench's list); without, the defaults at the end left
// out.
func (a wsWGMMAArgs) templateArgs(named bool) []any {
	mc := 1
	if a.mc2() || a.mc2n() {
		mc = 2
	}
	v := []any{a.bm, a.bn, a.stages, a.nacc(), a.kb, mc}
	p := a.f.ws.policies // the variant's, from its descriptor
	n := len(p)
	for !named && n > 0 && p[n-1] == wsDefaultPolicies[n-1] {
		n--
	}
	for _, s := range p[:n] {
		v = append(v, s)
	}
	return v
}
func (a wsWGMMAArgs) check() error {
	switch c := a.cols(); {
	case a.rows() != 64 && a.rows() != 128 && a.rows() != 192 && a.rows() != 256:
		return errors.New("the 64-row side (BM, or BN with SWAP) is 64, 128 or 192 (one to three consumer warpgroups) or BM = 256 (two of 128 rows)")
	case a.rows() == 256 && (a.swap() || a.fp8 || a.pp() || a.sk() && !a.tp() || a.rp() || a.b128() || a.il()):
		return errors.New("BM = 256: 16-bit, no swap, ping-pong, repack, block scales or interleaved split-K; stream-K only of planned parts (ws_stream_k_planned's fixup_blocks)")
	case !slices.Contains(wgmmaN, c):
		return fmt.Errorf("wgmma's N (BN, or BM with SWAP) is one of %v (wgmma_sm90.cuh's operand lists)", wgmmaN)
	case a.bm%8 != 0 || a.bn%8 != 0:
		return errors.New("boxes of whole 8-row swizzle atoms")
	case a.stages < 2:
		return errors.New("STAGES ≥ 2 (a stage loading while one is multiplied)")
	case a.kb < 1:
		return errors.New("KB ≥ 1")
	case a.pp() && (a.swap() || a.b128() || a.bm != 128 || a.bn != 128):
		return errors.New("ping-pong: two consumers of whole 128×128 tiles (each holds two 64×128 accumulators), no swap, no block scales")
	case a.fp8 && (a.kb != 1 || a.pp() || !a.swap() && a.bn > 192):
		return errors.New("e4m3: KB = 1 (a k-tile is the 128-element block promoted to fp32), no ping-pong, BN ≤ 192 (the partial sums need registers beside the accumulator)")
	case a.mc2n() && (a.mc2() || a.swap() || a.fp8 || a.pp() || a.sk() || a.rp() || a.b128() || a.bm/2%8 != 0):
		return errors.New("clusters along N: 16-bit, no swap, ping-pong, stream-K, repack or block scales, half of BM whole 8-row swizzle atoms")
	case a.mc2() && (a.fp8 || a.bn/2%8 != 0):
		return errors.New("multicast clusters: 16-bit inputs (e4m3 not yet measured), half of BN whole 8-row swizzle atoms")
	case a.rp() && (a.fp8 || a.pp() || a.mc2()):
		return errors.New("repack: 16-bit inputs, no ping-pong, no clusters")
	case a.sk() && (a.pp() || a.mc2() || a.b128()):
		return errors.New("stream-K: no ping-pong (consumers of whole tiles), no clusters, no block scales")
	case a.ts() && (a.rp() || !a.swap() && a.bn%32 != 0 || a.sk() && a.b128()):
		return errors.New("TMA-stored D: no repack, BN a multiple of the 32-column box (swap: any BM)")
	case a.il() && (a.swap() || a.fp8 || a.pp() || a.sk() || a.mc2() || a.mc2n() || a.ts() || a.rp() || a.b128()):
		return errors.New("interleaved split-K: 16-bit, no swap, ping-pong, stream-K, clusters, TMA-stored D, repack or block scales")
	case a.sh() && (!a.ts() || a.fp8 || a.pp() || a.mc2() || a.mc2n() || a.rp() || a.il() || a.b128() || a.sk() && a.swap()):
		return errors.New("shifted last token tile: 16-bit, TMA-stored D, no ping-pong, clusters, repack, interleaved split-K or swap stream-K")
	case a.wf() != (a.swap() && slices.Contains(waveFitted, a.bm)) || a.wf() && (!a.ts() || a.fp8 || a.sk() || a.mc2() || a.sh() || a.rp() || a.b128()):
		return fmt.Errorf("wave-fitted: swap tiles of %v tokens, all of them, 16-bit, TMA-stored, no stream-K, clusters, shift, repack or block scales", waveFitted)
	case a.sq() && (!a.swap() || !a.ts() || a.fp8 || a.sk() || a.mc2() || a.sh() || a.wf() || a.rp() || a.b128()):
		return errors.New("one accumulator chain: the 16-bit TMA-stored swap tiles, no stream-K, clusters, shift, wave-fitting, repack or block scales")
	case a.rn() && (!a.ts() || a.fp8 || a.swap() || a.pp() || a.sh() || a.il() || a.rp() || a.b128()):
		return errors.New("release-now: the 16-bit TMA-stored tiles, alone, in clusters or under stream-K (e4m3 gives each stage back at once already)")
	case a.lp() && (!a.fp8 || !a.ts() || a.b128() || a.sk() || a.mc2() || a.sh() || a.rn() || a.cols()*a.nacc() > 128):
		return errors.New("lagged promotion: e4m3 TMA-stored tiles, tensor or row scales, no stream-K, clusters or shift, two sets of chains of at most 128 columns in all")
	case a.b128() && (!a.fp8 || !a.swap() && a.bn != 128):
		return errors.New("128-block scales: e4m3, KB = 1 (a k-tile is one k-block), BN = 128 unless SWAP (one B block per consumer)")
	}
	return nil
}
