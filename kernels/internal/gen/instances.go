package main

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gemmroute/gemmroute/kernels"
)

// instance is one kernel: a family's template instantiated for a dtype pair
// and its template arguments, compiled into every image its family allows.
type instance struct {
	in, out kernels.DType
	args    kernelArgs
	// experimental: routed only by a table entry, never by the heuristic
	// (KernelSpec.Experimental): not yet run on a GPU, or its wins not yet
	// in the model.
	experimental bool
}

func (in instance) family() *family { return in.args.family() }

// imageSpec is one fatbin: the arch tag of its kernel names, the arch range
// its code runs on and the nvcc targets that give that range.
type imageSpec struct {
	file, tag        string
	minArch, maxArch kernels.Arch
	targets          []string
	flags            string
	sm90a            bool // holds the sm90a families' instances (flags define GR_HOPPER)
	smemLimit        int  // the largest opt-in shared memory of any device it serves
}

var images = []imageSpec{
	{file: "sm80.fatbin", tag: "sm80", minArch: kernels.SM80, maxArch: 0,
		targets:   []string{"sm_80", "compute_80"},
		flags:     "-gencode arch=compute_80,code=sm_80 -gencode arch=compute_80,code=compute_80",
		smemLimit: 163 << 10},
	{file: "sm90.fatbin", tag: "sm90", minArch: kernels.SM90, maxArch: kernels.SM90,
		targets: []string{"sm_90a"},
		flags:   "-gencode arch=compute_90a,code=sm_90a -DGR_HOPPER", sm90a: true,
		smemLimit: 227 << 10},
}

// commonFlags are the nvcc flags every image is built with.
const commonFlags = "-O3 -std=c++17 --fatbin -Xptxas -v"

// instanceList is the kernel set: the decode, tiled and warp-specialized
// families in both dtypes.
func instanceList() []instance {
	var out []instance
	for _, dt := range []kernels.DType{kernels.BF16, kernels.F16} {
		add := func(a kernelArgs) { out = append(out, instance{in: dt, out: dt, args: a}) }
		// decode_fma, 16-byte loads: {tokens, columns, warps, stage rounds}.
		for _, c := range [][4]int{{1, 2, 8, 4}, {1, 4, 8, 2}, {1, 2, 4, 4}, {2, 4, 8, 2}, {4, 2, 8, 2}} {
			add(decodeFMAArgs{bm: c[0], bn: c[1], vec: 8, warps: c[2], u: c[3]})
		}
		// decode_fma, element loads: any alignment, any K.
		for _, c := range [][3]int{{1, 4, 4}, {4, 4, 2}, {16, 4, 1}} {
			add(decodeFMAArgs{bm: c[0], bn: c[1], vec: 1, warps: 8, u: c[2]})
		}
		// decode_mma: {tokens, columns, warps, stage slices, vectors per lane}.
		for _, c := range [][5]int{{8, 16, 8, 2, 1}, {8, 16, 4, 4, 1}, {16, 16, 8, 2, 1}, {16, 16, 4, 2, 1}, {16, 32, 8, 1, 1},
			{8, 16, 8, 2, 2}, {8, 16, 4, 2, 2}, {16, 16, 8, 2, 2}, {16, 16, 4, 2, 2}, {8, 16, 8, 4, 1},
			// 16 tokens × 32 columns with 128-byte row segments: half the
			// activation loads per weight byte of 16×16 (M = 9…16 gap).
			{16, 32, 4, 1, 2}, {16, 32, 8, 1, 2}} {
			add(decodeMMAArgs{bm: c[0], bn: c[1], warps: c[2], u: c[3], lv: c[4]})
		}
		// tiled_mma: {BM, BN, BK, warps along M, warps along N, stages}, with
		// cp.async, then with element loads.
		for _, c := range [][6]int{{16, 64, 64, 1, 4, 4}, {32, 128, 64, 1, 4, 4}, {64, 128, 32, 2, 2, 4}, {128, 128, 32, 2, 4, 4}, {128, 256, 32, 2, 4, 3}} {
			add(tiledMMAArgs{bm: c[0], bn: c[1], bk: c[2], wm: c[3], wn: c[4], stages: c[5], aligned: true})
		}
		for _, c := range [][6]int{{64, 64, 32, 2, 2, 2}, {128, 128, 32, 2, 4, 2}} {
			add(tiledMMAArgs{bm: c[0], bn: c[1], bk: c[2], wm: c[3], wn: c[4], stages: c[5], aligned: false})
		}
		// tiled_wgmma (sm_90a): {BM, BN, stages}; 64x… tiles leave room for
		// two blocks per SM, 128x… tiles take one.
		for _, c := range [][3]int{{64, 128, 4}, {64, 256, 3}, {128, 128, 5}, {128, 256, 4}} {
			add(tiledWGMMAArgs{bm: c[0], bn: c[1], stages: c[2]})
		}
		// ws_wgmma (sm_90a, TMA): {BM, BN, stages}, the tiles that measured
		// best at M ≥ 256 on the H200 (docs/perf/2026-12-01-h200-tma, v4).
		for _, c := range [][3]int{{128, 256, 4}, {128, 192, 5}, {128, 128, 6}} {
			add(wsWGMMAArgs{f: &wsWGMMA, bm: c[0], bn: c[1], stages: c[2], kb: 1})
		}
		// ws_wgmma_swap: {tokens, weight rows, stages, boxes per stage}, the
		// tiles that measured best at M = 16…256 (v4).
		for _, c := range [][4]int{{16, 64, 16, 1}, {16, 128, 12, 1}, {32, 128, 8, 1}, {32, 128, 5, 2}, {64, 128, 8, 1},
			{64, 64, 10, 1}, {64, 64, 6, 2}, {128, 128, 6, 1}} {
			add(wsWGMMAArgs{f: &wsWGMMASwap, bm: c[0], bn: c[1], stages: c[2], kb: c[3]})
		}
		// ws_wgmma_pp: ping-pong under a persistent grid (v6; the engine's GPU
		// tests since docs/perf/2026-12-01-h200-fp8, call 5).
		add(wsWGMMAArgs{f: &wsWGMMAPP, bm: 128, bn: 128, stages: 6, kb: 1})
		// ws_wgmma_mc2 and ws_wgmma_pp_mc2: the same tiles in multicast
		// clusters of two (docs/perf/2026-12-01-h200-mc: kbench calls 1–2,
		// the engine's GPU tests call 3).
		for _, c := range [][3]int{{128, 256, 4}, {128, 192, 5}, {128, 128, 6}} {
			add(wsWGMMAArgs{f: &wsWGMMAMC2, bm: c[0], bn: c[1], stages: c[2], kb: 1})
		}
		add(wsWGMMAArgs{f: &wsWGMMAPPMC2, bm: 128, bn: 128, stages: 6, kb: 1})
		// ws_wgmma_sk and ws_wgmma_swap_sk: stream-K (whole waves, then the
		// partial wave's tiles split along K) over the tiles above
		// (docs/perf/2026-12-01-h200-sk: kbench calls 1–3, the engine's GPU
		// tests calls 3 and 5).
		for _, c := range [][3]int{{128, 256, 4}, {128, 192, 5}, {128, 128, 6}} {
			add(wsWGMMAArgs{f: &wsWGMMASK, bm: c[0], bn: c[1], stages: c[2], kb: 1})
		}
		for _, c := range [][3]int{{16, 128, 12}, {32, 128, 8}, {64, 128, 8}, {64, 64, 10}, {128, 128, 6}} {
			add(wsWGMMAArgs{f: &wsWGMMASwapSK, bm: c[0], bn: c[1], stages: c[2], kb: 1})
		}
		experimental := func(a kernelArgs) { out = append(out, instance{in: dt, out: dt, args: a, experimental: true}) }
		// Mid-M tiles whose weight rows are visited 256 contiguous bytes at a
		// time (KB = 2), data-parallel and stream-K (experimental, not yet
		// run): at M = 128 the KB = 1 tiles stream 2.2 TB/s of DRAM and scale
		// neither with more blocks nor with split K (docs/perf/2026-12-01-h200-sk,
		// calls 2–3), as if each 128-byte row visit cost a DRAM page.
		for _, c := range [][3]int{{64, 128, 4}, {128, 128, 3}} {
			experimental(wsWGMMAArgs{f: &wsWGMMASwap, bm: c[0], bn: c[1], stages: c[2], kb: 2})
			experimental(wsWGMMAArgs{f: &wsWGMMASwapSK, bm: c[0], bn: c[1], stages: c[2], kb: 2})
		}
		// Mid-M tiles that give about one block per SM (experimental: they
		// passed kbench check, memcheck and the awkward table on the H200,
		// docs/perf/2026-12-02-h200-b calls 2–3, and run only where a measured
		// table entry names them): at M = 128…256 on the H200 each block ingests its operands at
		// 70–95 GB/s whatever the tile (docs/perf/2026-12-02-h200-b, call 1:
		// ncu of cuBLAS's nvjet 96x64 and 96x128 tiles and of ours), so the
		// time is the largest block's bytes; cuBLAS picks 96- and 64-wide
		// weight tiles that make 128 blocks. Ours: 128 tokens × 96 or 64
		// weight rows (one token tile at M ≤ 128, so each weight row is read
		// once; stream-K splits K in two where the tiles are ≤ 66), and 64
		// tokens × 96 rows with one consumer.
		for _, c := range [][3]int{{128, 96, 7}, {128, 64, 8}, {64, 96, 10}} {
			experimental(wsWGMMAArgs{f: &wsWGMMA, bm: c[0], bn: c[1], stages: c[2], kb: 1})
			experimental(wsWGMMAArgs{f: &wsWGMMASK, bm: c[0], bn: c[1], stages: c[2], kb: 1})
		}
		// The 64-token tiles in clusters of two along N that share the token
		// tile, as cuBLAS's 96x64 1×2 at qkv M = 128 (experimental, not yet
		// run).
		for _, c := range [][3]int{{64, 96, 10}, {64, 64, 12}, {128, 96, 7}} {
			experimental(wsWGMMAArgs{f: &wsWGMMAMC2N, bm: c[0], bn: c[1], stages: c[2], kb: 1})
		}
		// 32 tokens × 64 weight rows (swap), as cuBLAS's 64x32 at M = 17…64:
		// twice the blocks of 32 × 128 (96 at N = 6144), and with stream-K
		// 128 at N = 4096; 16 × 64 with stream-K likewise (experimental, as
		// the mid-M tiles above).
		experimental(wsWGMMAArgs{f: &wsWGMMASwap, bm: 32, bn: 64, stages: 16, kb: 1})
		experimental(wsWGMMAArgs{f: &wsWGMMASwapSK, bm: 32, bn: 64, stages: 16, kb: 1})
		experimental(wsWGMMAArgs{f: &wsWGMMASwapSK, bm: 16, bn: 64, stages: 16, kb: 1})
		experimental(wsWGMMAArgs{f: &wsWGMMA, bm: 128, bn: 128, stages: 3, kb: 2})
		experimental(wsWGMMAArgs{f: &wsWGMMASK, bm: 128, bn: 128, stages: 3, kb: 2})
		// ws_wgmma_ts, ws_wgmma_mc2_ts and ws_wgmma_mc2n_ts: the large-M tiles
		// with D staged in shared memory and stored by TMA (issue 17 item 2).
		// The staging buffer takes 64·BN·2 bytes per consumer of the 227 KiB:
		// 128x256 keeps 3 stages (209 KiB), 128x192 4. Experimental: they passed
		// kbench check, memcheck, racecheck and the awkward table on the H200
		// (docs/perf/2026-12-02-h200-d, calls 1–2; the planner keeps them from
		// a D whose N·2 is not a multiple of 16) and run only where a measured
		// table entry names them; 2–8 % faster than their register twins at
		// M = 4096 (call 1).
		for _, c := range [][3]int{{128, 256, 3}, {128, 192, 4}} {
			experimental(wsWGMMAArgs{f: &wsWGMMATS, bm: c[0], bn: c[1], stages: c[2], kb: 1})
			experimental(wsWGMMAArgs{f: &wsWGMMAMC2TS, bm: c[0], bn: c[1], stages: c[2], kb: 1})
		}
		experimental(wsWGMMAArgs{f: &wsWGMMAMC2NTS, bm: 128, bn: 256, stages: 3, kb: 1})
		// The TMA-store epilogue for the tiles the mid-M buckets route to
		// (128x128 alone and in clusters along M, 128x64, 64x64 in clusters
		// along N) and for the stream-K tiles of M ≈ 257…1024: at M = 1024,
		// N = 4096 the 128x256 register epilogue costs 5.7 µs more than the
		// TMA store at K = 64 (11.03 against 5.34 µs; cuBLAS 4.70) and 6.9
		// µs at K = 4096 (docs/perf/2026-12-04-h200, call 1). Same stages as
		// the register twins where the staging buffer fits, one fewer where
		// it does not (experimental; correct through the engine on an
		// H100, docs/perf/2026-12-06-h200-c call 7).
		for _, a := range []wsWGMMAArgs{
			{f: &wsWGMMATS, bm: 128, bn: 128, stages: 6}, {f: &wsWGMMAMC2TS, bm: 128, bn: 128, stages: 6}, {f: &wsWGMMATS, bm: 128, bn: 64, stages: 8},
			{f: &wsWGMMAMC2NTS, bm: 64, bn: 64, stages: 12},
			{f: &wsWGMMASKTS, bm: 128, bn: 256, stages: 3}, {f: &wsWGMMASKTS, bm: 128, bn: 192, stages: 4}, {f: &wsWGMMASKTS, bm: 128, bn: 128, stages: 6},
		} {
			a.kb = 1
			experimental(a)
		}
		// The 96-wide mid-M tiles (qkv M = 33…128), storing D in three boxes
		// of 32 columns (64-byte swizzle; experimental; correct through the
		// engine on an H100, docs/perf/2026-12-06-h200-c call 7).
		for _, c := range [][3]int{{64, 96, 10}, {128, 96, 7}} {
			experimental(wsWGMMAArgs{f: &wsWGMMATS, bm: c[0], bn: c[1], stages: c[2], kb: 1})
		}
		// The swap tiles the M = 17…256 buckets route to, with the TMA store
		// (ws_wgmma_swap_ts, experimental; correct through the engine on an H100,
		// docs/perf/2026-12-06-h200-c call 7).
		for _, c := range [][4]int{{16, 128, 12, 1}, {32, 128, 8, 1}, {32, 128, 5, 2}, {64, 128, 8, 1}} {
			experimental(wsWGMMAArgs{f: &wsWGMMASwapTS, bm: c[0], bn: c[1], stages: c[2], kb: c[3]})
		}
		// and their twins of one accumulator chain (ws_wgmma_swap_sq_ts, the
		// class wgmma16.seq: the batch-invariant mode's small-M tiles;
		// experimental, not yet run)
		for _, c := range [][3]int{{16, 128, 12}, {32, 128, 8}, {64, 128, 8}} {
			experimental(wsWGMMAArgs{f: &wsWGMMASwapSqTS, bm: c[0], bn: c[1], stages: c[2], kb: 1})
		}
		// and their stream-K twins (ws_wgmma_swap_sk_ts: K split in the
		// kernel, fixed-order sums, the finished tile stored by TMA), for the
		// mid-M buckets that split K (experimental; correct through the engine on an H100,
		// docs/perf/2026-12-06-h200-c call 7)
		for _, c := range [][3]int{{16, 128, 12}, {32, 128, 8}, {64, 128, 8}} {
			experimental(wsWGMMAArgs{f: &wsWGMMASwapSKTS, bm: c[0], bn: c[1], stages: c[2], kb: 1})
		}
		// Clusters of two token tiles sharing the weights' box by TMA
		// multicast (ws_wgmma_swap_mc2_ts; 32x64 also with the register
		// epilogue, beside ws_wgmma_swap 32x64): cuBLAS's tiles at o, M =
		// 32…128 (experimental: correct, no faster on the H200).
		for _, c := range [][3]int{{16, 64, 16}, {32, 64, 16}, {64, 64, 10}, {32, 128, 8}, {64, 128, 8}} {
			experimental(wsWGMMAArgs{f: &wsWGMMASwapMC2TS, bm: c[0], bn: c[1], stages: c[2], kb: 1})
		}
		experimental(wsWGMMAArgs{f: &wsWGMMASwapMC2, bm: 32, bn: 64, stages: 16, kb: 1})
		// The mid-M routes' tiles with the last token tile moved back to end
		// at M (ws_wgmma_sh_ts, ws_wgmma_swap_sh_ts; experimental: correct,
		// routed by measured entries); 128x64 for the variants without the
		// shift that ran o (4096 × 4096) at M = 182 in 30.6 µs and at M = 256
		// in 18.6, the same tiles (docs/perf/2026-12-07-h200-f): correct, 17.8
		// and 18.8 µs (docs/perf/2026-12-07-h200-h, call E, H100).
		for _, c := range [][3]int{{64, 96, 10}, {128, 96, 7}, {128, 128, 6}, {128, 64, 8}} {
			experimental(wsWGMMAArgs{f: &wsWGMMAShTS, bm: c[0], bn: c[1], stages: c[2], kb: 1})
		}
		// and the large tiles of M ≥ 257, alone and stream-K (ws_wgmma_sh_ts
		// 128x256, 128x192; ws_wgmma_sk_sh_ts 128x256, 128x192, 128x128;
		// experimental; correct through the engine on an H100,
		// docs/perf/2026-12-06-h200-c call 7)
		for _, c := range [][3]int{{128, 256, 3}, {128, 192, 4}} {
			experimental(wsWGMMAArgs{f: &wsWGMMAShTS, bm: c[0], bn: c[1], stages: c[2], kb: 1})
		}
		for _, c := range [][3]int{{128, 256, 3}, {128, 192, 4}, {128, 128, 6}} {
			experimental(wsWGMMAArgs{f: &wsWGMMASKShTS, bm: c[0], bn: c[1], stages: c[2], kb: 1})
		}
		// Every tile split in the plan's parts, summed in the kernel
		// (ws_wgmma_ks_ts): the batch-invariant mode's split-K at any M, over
		// the tiles of ws_wgmma_ts from decode to large M (experimental;
		// correct on an H100, kbench and the engine's tests,
		// docs/perf/2026-12-07-h200-h calls E and F).
		for _, c := range [][3]int{{128, 64, 8}, {128, 128, 6}, {128, 256, 3}} {
			experimental(wsWGMMAArgs{f: &wsWGMMAKSTS, bm: c[0], bn: c[1], stages: c[2], kb: 1})
		}
		// Stream-K with the plan's tail split (ws_wgmma_sk_tp_sh_ts): the
		// stream-K tiles and 128x96, the mid-M tile (experimental; correct on
		// an H100, docs/perf/2026-12-07-h200-f calls K and T; routed by
		// measured entries at M = 257…1024),
		// and the 256-row tiles (two 64-row blocks a consumer, fixup_blocks):
		// the tail split over cuBLAS's 256x128 tile, which reads half the
		// L2 bytes of our 128x128 per flop (experimental; correct on an
		// H100, docs/perf/2026-12-07-h200-h call E).
		for _, c := range [][3]int{{128, 256, 3}, {128, 192, 4}, {128, 128, 6}, {128, 96, 7}, {256, 128, 4}, {256, 160, 3}} {
			experimental(wsWGMMAArgs{f: &wsWGMMASKTPShTS, bm: c[0], bn: c[1], stages: c[2], kb: 1})
		}
		for _, c := range [][3]int{{32, 128, 8}, {64, 128, 8}} {
			experimental(wsWGMMAArgs{f: &wsWGMMASwapShTS, bm: c[0], bn: c[1], stages: c[2], kb: 1})
		}
		// Wave-fitted swap tiles for M ≥ 257 (issue 17, ws_wgmma_swap_wf_ts): weights × tokens with
		// the token side in steps of 8, so that ceil(M/BM) token tiles end
		// just past M and the tiles fill the SMs' waves, as cuBLAS's nvjet
		// tiles there (docs/perf/2026-12-05-h200, call 2: o M = 513 128x136,
		// 4 × 32 tiles; M = 1025 192x176, 6 × 22; qkv M = 513 256x104), where
		// our 128-row token tiles compute 640 rows for 513. BN = 192 is three
		// consumers. Stages: as many as fit beside the staging buffer.
		// Experimental (correct through the engine on an H100,
		// docs/perf/2026-12-06-h200-c call 7).
		for _, c := range [][3]int{{104, 128, 6}, {136, 128, 5}, {152, 128, 5}, {176, 128, 4}, {208, 128, 4}, {104, 192, 5}, {136, 192, 4}, {176, 192, 3}} {
			experimental(wsWGMMAArgs{f: &wsWGMMASwapWFTS, bm: c[0], bn: c[1], stages: c[2], kb: 1})
		}
		// 256 tokens x 128 weight rows, two consumers of 128 rows (two
		// independent 64x128 wgmma chains each), as cuBLAS's nvjet 256x128
		// coopA 1×2 at o M = 1024, which keeps the tensor pipe at 83 %
		// against our 128x256's 70 % (docs/perf/2026-12-02-h200-c call 1,
		// 2026-12-02-h200-d call 1: its warps wait at the tensor pipe's
		// issue, ours at our own chain's completion). Register and TMA-store
		// epilogues, alone and in clusters along N sharing the 32 KB token
		// box (experimental; correct through the engine on an
		// H100, docs/perf/2026-12-06-h200-c call 7).
		for _, f := range [][2]*family{{&wsWGMMA, &wsWGMMATS}, {&wsWGMMAMC2N, &wsWGMMAMC2NTS}} {
			experimental(wsWGMMAArgs{f: f[0], bm: 256, bn: 128, stages: 4, kb: 1})
			experimental(wsWGMMAArgs{f: f[1], bm: 256, bn: 128, stages: 4, kb: 1})
		}
		// 256 tokens x 160 weight rows: each consumer computes what each of
		// cuBLAS's does in its nvjet 320x128 coopB 1×2 at 4096 × 14336 × 4096
		// (128 tokens x 160 weights, 160 accumulators a thread; 1440 tiles
		// there, 10.9 a block on 132 SMs), where cuBLAS keeps the tensor pipe
		// at 93 % and our 128x256 at 79 % (docs/perf/2026-12-06-h200, H100).
		// Four stages of 52 KB with the register epilogue, three beside the
		// TMA store's 40 KB of staging; alone and in clusters along N
		// (experimental; correct through the engine on an
		// H100, docs/perf/2026-12-06-h200-c call 7).
		for _, f := range [][2]*family{{&wsWGMMA, &wsWGMMATS}, {&wsWGMMAMC2N, &wsWGMMAMC2NTS}} {
			experimental(wsWGMMAArgs{f: f[0], bm: 256, bn: 160, stages: 4, kb: 1})
			experimental(wsWGMMAArgs{f: f[1], bm: 256, bn: 160, stages: 3, kb: 1})
		}
		// The three-stage TMA-store tiles with the consumers' release-now
		// policy (experimental: kbench instances of ts 128x256 and mc2n_ts
		// 256x160 passed check and memcheck and ran 3–5 % faster than their
		// twins on an H100, docs/perf/2026-12-06-h200-b call 4; the 128x256
		// in clusters and under stream-K correct there too,
		// docs/perf/2026-12-06-h200-c call 1).
		for _, a := range []wsWGMMAArgs{{f: &wsWGMMARNTS, bm: 128, bn: 256}, {f: &wsWGMMARNTS, bm: 256, bn: 160}, {f: &wsWGMMARNMC2NTS, bm: 256, bn: 160},
			{f: &wsWGMMARNMC2TS, bm: 128, bn: 256}, {f: &wsWGMMARNMC2NTS, bm: 128, bn: 256}, {f: &wsWGMMARNSKTS, bm: 128, bn: 256}} {
			a.stages, a.kb = 3, 1
			experimental(a)
		}
		// 128 tokens x 224 weight rows, three stages beside the TMA store's
		// 56 KB of staging: at M = 1024 on 14336 rows, 512 tiles are 3.88
		// waves of 132 SMs where the 128x256's 448 are 3.39 (four tiles on
		// the busiest SM either way, each an eighth smaller), as cuBLAS's
		// nvjet 128x176 fits 4.97 waves there; the 128x256 family's best ran
		// 177–186 µs against cuBLAS's 159 on an H100
		// (docs/perf/2026-12-06-h200-c, call 1). With and without
		// release-now, and in clusters along M. Experimental: correct on
		// H100s (calls 2 and 18 there), no faster at M = 1024 than the
		// 128x256 under stream-K (177.3 against 169.9 µs, call 2).
		experimental(wsWGMMAArgs{f: &wsWGMMATS, bm: 128, bn: 224, stages: 3, kb: 1})
		for _, f := range []*family{&wsWGMMARNTS, &wsWGMMARNMC2TS} {
			experimental(wsWGMMAArgs{f: f, bm: 128, bn: 224, stages: 3, kb: 1})
		}
		// The ping-pong 128x128 with the TMA-store epilogue, alone and in
		// clusters along M: five stages beside the two consumers' 16 KB
		// staging buffers. Experimental: correct on an H100 and the H200,
		// 0.92× the register twin's time at M = 1024 and 4096 (call 4
		// there), the fastest kernel of the H200's tune at Llama-3-8B down
		// M = 512 (80.2 µs, call 18).
		for _, f := range []*family{&wsWGMMAPPTS, &wsWGMMAPPMC2TS} {
			experimental(wsWGMMAArgs{f: f, bm: 128, bn: 128, stages: 5, kb: 1})
		}
		// ws_wgmma_il: the mid-M tiles above with interleaved split-K (split z
		// of S reads k-tiles z, z + S, …), for M = 128 where the weights need
		// more blocks than tiles. Experimental (passed kbench check, memcheck
		// and the awkward table on the H200, docs/perf/2026-12-02-h200-d calls
		// 1–2): interleaving did not make the split tiles faster (o M = 128,
		// 128x96 split 2: 19.3 µs against 19.0 split in blocks), but at
		// split 1 the 128x64 s8 is the fastest 128-token tile there (16.5 µs).
		for _, c := range [][3]int{{128, 96, 7}, {128, 64, 8}} {
			experimental(wsWGMMAArgs{f: &wsWGMMAIL, bm: c[0], bn: c[1], stages: c[2], kb: 1})
		}
		// ws_wgmma_rp, ws_wgmma_swap_rp and their stream-K twins: the tiles
		// above, on the repack kernel's copies (experimental; correct through the engine on an
		// H100, docs/perf/2026-12-06-h200-c call 7).
		for _, c := range [][3]int{{128, 128, 6}, {128, 256, 4}} {
			experimental(wsWGMMAArgs{f: &wsWGMMARP, bm: c[0], bn: c[1], stages: c[2], kb: 1})
		}
		experimental(wsWGMMAArgs{f: &wsWGMMASKRP, bm: 128, bn: 128, stages: 6, kb: 1})
		for _, c := range [][3]int{{16, 128, 12}, {64, 128, 8}} {
			experimental(wsWGMMAArgs{f: &wsWGMMASwapRP, bm: c[0], bn: c[1], stages: c[2], kb: 1})
		}
		experimental(wsWGMMAArgs{f: &wsWGMMASwapSKRP, bm: 64, bn: 128, stages: 8, kb: 1})
		// The mid-M routes' TMA-store tiles whose consumers exit once their
		// last stores have read the staging buffer (ws_wgmma_ex_ts,
		// ws_wgmma_swap_ex_ts; experimental, not yet run): at o, M = 64 the
		// gap to cuBLAS is a fixed cost per GEMM (docs/perf/2026-12-06-h200-f,
		// call 1).
		for _, c := range [][3]int{{64, 96, 10}, {128, 96, 7}, {128, 128, 6}} {
			experimental(wsWGMMAArgs{f: &wsWGMMAExTS, bm: c[0], bn: c[1], stages: c[2], kb: 1})
		}
		for _, c := range [][4]int{{16, 128, 12, 1}, {32, 128, 8, 1}, {32, 128, 5, 2}} {
			experimental(wsWGMMAArgs{f: &wsWGMMASwapExTS, bm: c[0], bn: c[1], stages: c[2], kb: c[3]})
		}
	}
	return append(out, e4m3Instances()...)
}

// e4m3Instances are the FP8 kernels (sm_90 image), for bf16 and f16
// outputs: element-load and 16-byte decode_fma (any alignment), decode_mma
// (operands converted to f16) for M ≤ 16, ws_wgmma_swap and ws_wgmma (TMA,
// wgmma k32, promoted to fp32 every 128 k) above, and the 128-block scaled
// ws kernels: the bf16 tiles that measured best, at the same bytes per
// stage, that leave registers for the fp32 promotion. All ran the engine's
// GPU tests on the H200 (docs/perf/2026-12-01-h200-fp8, call 7).
func e4m3Instances() []instance {
	var out []instance
	for _, dt := range []kernels.DType{kernels.BF16, kernels.F16} {
		add := func(a kernelArgs) {
			out = append(out, instance{in: kernels.E4M3, out: dt, args: a})
		}
		for _, c := range [][4]int{{1, 4, 16, 2}, {4, 2, 16, 2}, {1, 4, 1, 4}, {4, 4, 1, 2}, {16, 4, 1, 1}} {
			add(decodeFMAArgs{bm: c[0], bn: c[1], vec: c[2], warps: 8, u: c[3], fp8: true})
		}
		for _, c := range [][5]int{{8, 16, 8, 2, 1}, {16, 16, 8, 2, 1}, {8, 16, 8, 2, 2}, {16, 16, 8, 2, 2}, {16, 32, 4, 1, 2}, {16, 32, 8, 1, 2}} {
			add(decodeMMAArgs{bm: c[0], bn: c[1], warps: c[2], u: c[3], lv: c[4], fp8: true})
		}
		// decode_mma_stream (experimental; correct through the engine on an H100,
		// docs/perf/2026-12-06-h200-c call 7 on a GPU): two register
		// stages really in flight, 128-byte row segments (LV = 2), 4 warps so
		// that N = 4096 fits its 256 blocks in one wave; 8×32 converts each
		// token vector once for two row groups.
		for _, c := range [][5]int{{8, 16, 4, 2, 2}, {8, 16, 4, 4, 2}, {8, 32, 4, 2, 2}, {16, 16, 4, 2, 2}, {16, 32, 4, 1, 2}, {8, 16, 8, 2, 1}} {
			out = append(out, instance{in: kernels.E4M3, out: dt, experimental: true,
				args: decodeMMAArgs{bm: c[0], bn: c[1], warps: c[2], u: c[3], lv: c[4], fp8: true, ld: ldStream}})
		}
		for _, c := range [][3]int{{128, 192, 5}, {128, 128, 6}} {
			add(wsWGMMAArgs{f: &wsWGMMA, bm: c[0], bn: c[1], stages: c[2], kb: 1, fp8: true})
		}
		for _, c := range [][3]int{{16, 64, 16}, {16, 128, 12}, {32, 128, 8}, {64, 128, 8}, {64, 64, 10}, {128, 128, 6}} {
			add(wsWGMMAArgs{f: &wsWGMMASwap, bm: c[0], bn: c[1], stages: c[2], kb: 1, fp8: true})
		}
		// stream-K e4m3 swap tiles for mid M (issue 20 item 4; experimental,
		// correct through the engine on an H100, docs/perf/2026-12-06-h200-c
		// call 7): the 16-bit stream-K kernels' policy, promotion as above.
		for _, c := range [][3]int{{16, 128, 12}, {32, 128, 8}, {64, 128, 8}} {
			out = append(out, instance{in: kernels.E4M3, out: dt, experimental: true,
				args: wsWGMMAArgs{f: &wsWGMMASwapSK, bm: c[0], bn: c[1], stages: c[2], kb: 1, fp8: true}})
		}
		// The mid-M tiles of one block per SM that the 16-bit kernels measured
		// best at M = 33…256 (docs/perf/2026-12-02-h200-b), in e4m3
		// (experimental; correct through the engine on an H100,
		// docs/perf/2026-12-06-h200-c call 7): 64 tokens × 96 weight rows with one
		// consumer, 128 × 96.
		for _, c := range [][3]int{{64, 96, 10}, {128, 96, 7}} {
			out = append(out, instance{in: kernels.E4M3, out: dt, experimental: true,
				args: wsWGMMAArgs{f: &wsWGMMA, bm: c[0], bn: c[1], stages: c[2], kb: 1, fp8: true}})
		}
		add(wsWGMMAArgs{f: &wsWGMMAB128, bm: 128, bn: 128, stages: 6, kb: 1, fp8: true})
		for _, c := range [][3]int{{16, 64, 16}, {16, 128, 12}, {32, 128, 8}, {64, 128, 8}} {
			add(wsWGMMAArgs{f: &wsWGMMASwapB128, bm: c[0], bn: c[1], stages: c[2], kb: 1, fp8: true})
		}
		// The routed e4m3 tiles with the TMA store (ws_wgmma_ts,
		// ws_wgmma_swap_ts and their 128-block twins; experimental, not yet
		// run): one stage fewer where the staging buffer needs it (128x192).
		for _, a := range []wsWGMMAArgs{
			{f: &wsWGMMATS, bm: 128, bn: 128, stages: 6}, {f: &wsWGMMATS, bm: 128, bn: 192, stages: 4}, {f: &wsWGMMAB128TS, bm: 128, bn: 128, stages: 6},
			{f: &wsWGMMASwapTS, bm: 16, bn: 128, stages: 12}, {f: &wsWGMMASwapTS, bm: 32, bn: 128, stages: 8}, {f: &wsWGMMASwapTS, bm: 64, bn: 128, stages: 8},
			{f: &wsWGMMASwapB128TS, bm: 16, bn: 128, stages: 12}, {f: &wsWGMMASwapB128TS, bm: 32, bn: 128, stages: 8},
		} {
			a.kb, a.fp8 = 1, true
			out = append(out, instance{in: kernels.E4M3, out: dt, experimental: true, args: a})
		}
		// Lagged promotion (ws_promote_lagged; experimental: correct, and 0–12 %
		// slower than the twins on an H100, docs/perf/2026-12-06-h200-f call 1):
		// the routed non-swap tile and the swap tiles whose two sets of chains fit.
		for _, a := range []wsWGMMAArgs{{f: &wsWGMMALPTS, bm: 128, bn: 128, stages: 6}, {f: &wsWGMMASwapLPTS, bm: 16, bn: 128, stages: 12}, {f: &wsWGMMASwapLPTS, bm: 32, bn: 128, stages: 8}} {
			a.kb, a.fp8 = 1, true
			out = append(out, instance{in: kernels.E4M3, out: dt, experimental: true, args: a})
		}
	}
	return out
}

// hopperOnly reports whether the instance goes into the sm90a image only:
// its family uses sm_90a instructions, or its inputs are e4m3 (mma and
// wgmma on e4m3 need sm_89+, which the sm_80 image's PTX cannot assume).
func (in instance) hopperOnly() bool { return in.family().sm90a || in.in == kernels.E4M3 }

// instances is the checked kernel set: every instance's family is in
// families, its arguments pass the template's checks, its alignment is one
// its family offers, and no two share a name.
func instances() ([]instance, error) {
	list := instanceList()
	known := map[*family]bool{}
	for _, f := range families {
		known[f] = true
	}
	var errs []error
	seen := map[string]bool{}
	for _, in := range list {
		name, f := in.suffix(), in.family()
		switch {
		case !known[f]:
			errs = append(errs, fmt.Errorf("%s: family %q is not in families", name, f.name))
		case !in.args.tile().aligned && !f.elementLoads:
			errs = append(errs, fmt.Errorf("%s: family %s has no element-load variant", name, f.name))
		case seen[name]:
			errs = append(errs, fmt.Errorf("%s: listed twice", name))
		case in.in == kernels.E4M3 && len(f.scalings) == 0:
			errs = append(errs, fmt.Errorf("%s: family %s applies no e4m3 scaling", name, f.name))
		case slices.Contains(f.scalings, kernels.ScalingBlock) && in.in != kernels.E4M3:
			errs = append(errs, fmt.Errorf("%s: family %s is for e4m3 inputs only", name, f.name))
		}
		if err := in.args.check(); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
		}
		seen[name] = true
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("bad instance list (kernels/internal/gen/instances.go):\n%w", err)
	}
	return list, nil
}

var cuType = map[kernels.DType]string{kernels.BF16: "__nv_bfloat16", kernels.F16: "__half", kernels.E4M3: "__nv_fp8_e4m3"}

// suffix is the kernel name after "gemmroute_<arch>_": family, types
// (A·B → accumulator → D is in_out_f32), layout, tile BMxBNxBK, warps,
// depth (u: K slices per register stage; s: shared-memory stages) and
// alignment in bytes.
func (in instance) suffix() string {
	t, f := in.args.tile(), in.family()
	depth := "u"
	if f.depth == smemStages {
		depth = "s"
	}
	return fmt.Sprintf("%s_%s_%s_f32_tn_%dx%dx%d_w%d_%s%d_a%d", f.name, in.in, in.out, t.bm, t.bn, t.bk, t.warps, depth, t.depth, t.align(in.in.Size()))
}

// launchBounds is the wrapper's __launch_bounds__ arguments: the block's
// threads, and the family's minimum blocks per SM when it sets one.
func (in instance) launchBounds() string {
	s := strconv.Itoa(in.args.tile().warps * 32)
	if f := in.family(); f.minBlocks > 0 {
		s += ", " + strconv.Itoa(f.minBlocks)
	}
	return s
}

// clusterDims is the wrapper's __cluster_dims__ attribute (with a leading
// space), or "" for a family without clusters.
func (in instance) clusterDims() string {
	if c := in.family().cluster; c > 1 {
		return fmt.Sprintf(" __cluster_dims__(%d, 1, 1)", c)
	}
	return ""
}

// param is the wrapper's parameter declaration: a __grid_constant__ for the
// families that load through tensor maps (family.tmaBox).
func (in instance) param() string {
	if in.family().tmaBox != nil {
		return "const __grid_constant__ gr_gemm_params p"
	}
	return "const gr_gemm_params p"
}

// call is the template call the extern "C" wrapper makes.
func (in instance) call() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s<%s, %s", in.family().template, cuType[in.in], cuType[in.out])
	for _, v := range in.args.values() {
		fmt.Fprintf(&b, ", %v", v)
	}
	b.WriteString(">(p)")
	return b.String()
}

// scaleShares scales a kernel model's rate and stream shares by share (0:
// unchanged): a family's builds for one image or dtype that reach less.
func scaleShares(m *kernels.Model, share float64) {
	if share != 0 {
		m.RateShare *= share
		m.StreamShare *= share
	}
}

// spec is the manifest entry of an instance in one image.
func (in instance) spec(im imageSpec) kernels.KernelSpec {
	t, f, elem := in.args.tile(), in.family(), in.in.Size()
	a := t.align(elem)
	stages := 1 // registers only
	if f.depth == smemStages {
		stages = t.depth
	}
	k := kernels.KernelSpec{
		Name: "gemmroute_" + im.tag + "_" + in.suffix(), Image: im.file, Family: f.name,
		MinArch: im.minArch, MaxArch: im.maxArch, In: in.in, Out: in.out, Layout: kernels.LayoutTN,
		TileM: t.bm, TileN: t.bn, TileK: t.bk, Stages: stages, Threads: t.warps * 32, SmemBytes: f.smemBytes(t, elem),
		PtrAlign: a, LDAlign: a, KMultiple: a / elem,
		MaxSplitK: f.maxSplitK, Reduction: kernels.ReduceNone,
		IndexBits: f.indexBits,
		LoadBytes: f.loadBytes(t, elem),
		Model: kernels.Model{Kind: f.model.kind, RateShare: f.model.rateShare(t), StreamShare: f.model.streamShare,
			RasterGroup: f.model.rasterGroup},
	}
	if im.minArch >= kernels.SM90 {
		scaleShares(&k.Model, f.model.hopperShare)
	}
	if in.in == kernels.E4M3 {
		scaleShares(&k.Model, f.model.fp8Share)
	}
	if f.maxSplitK > 1 {
		k.Reduction, k.ReduceKernel = kernels.ReduceWorkspace, "gemmroute_"+im.tag+"_"+reduceSuffix(in.out)
	}
	if f.streamK {
		k.Reduction = kernels.ReduceStreamK
	}
	if f.tailParts {
		k.Reduction = kernels.ReduceStreamKParts
	}
	if f.splitFixed {
		k.Reduction, k.ReduceKernel = kernels.ReduceSplitFixed, ""
	}
	if f.repack {
		k.RepackKernel = "gemmroute_" + im.tag + "_" + repackKernel.suffix
	}
	if f.tmaBox != nil {
		k.TMABox = f.tmaBox(t)
	}
	if f.tmaStoreBox != nil {
		k.TMAStoreBox, k.DPtrAlign, k.DLDAlign = f.tmaStoreBox(t), 16, 16
	}
	if in.in == kernels.E4M3 {
		k.Scalings = f.scalings
	}
	k.Experimental = in.experimental
	k.ReductionClass = in.args.class()
	k.Persistent = f.persistent
	if f.cluster > 1 {
		k.Cluster, k.ClusterAlongN = f.cluster, f.clusterAlongN
	}
	return k
}
