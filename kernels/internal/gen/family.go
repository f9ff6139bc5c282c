package main

import (
	"errors"
	"fmt"
	"math"

	"github.com/gemmroute/gemmroute/kernels"
)

// A kernel family is one CUDA template in one header of kernels/src and one
// descriptor here: a family value (what every kernel of the family shares,
// from its name to the analytic model's parameters) and a kernelArgs type
// (the template's value arguments, which vary per kernel, and the template's
// static_asserts mirrored). instanceList pairs them with dtypes. Nothing else in the generator, the manifest reader or the
// dispatcher's model names a family.
//
// To add a family: write kernels/src/FAMILY.cuh, add its family value to
// families and its kernelArgs type below, list its instances in
// instanceList (instances.go), run go generate ./kernels, then
// bash kernels/build.sh (README.md, "Adding a kernel family").

// family describes one kernel family.
type family struct {
	// name is the manifest's family and the first word of every kernel name
	// of the family after "gemmroute_<arch>_" (see instance.suffix).
	name string
	// header is the file in kernels/src that defines the template;
	// instances_gen.cu includes it.
	header string
	// template is the device function the extern "C" wrapper calls:
	// template<T, TOut, kernelArgs.values()...>(p).
	template string
	// depth says what tile.depth counts, and so the name's depth field and
	// the manifest's stages.
	depth depthKind
	// sm90a: the template uses sm_90a instructions (wgmma, TMA); its
	// instances are compiled into the images built with -DGR_HOPPER only.
	sm90a bool
	// elementLoads: the family has element-load variants (tile.aligned
	// false), which accept any alignment and any K.
	elementLoads bool
	// smemBytes is the dynamic shared memory a block uses (0: static
	// shared memory only), for elements of elem bytes.
	smemBytes func(t tile, elem int) int
	// loadBytes is the weight bytes one thread loads per pipeline stage,
	// for elements of elem bytes (the model's latency hiding reads it).
	loadBytes func(t tile, elem int) int
	// maxSplitK is the largest split-K factor (1: no split-K); a family
	// with split-K reduces through the workspace and splitkReduce.
	maxSplitK int
	// indexBits is 64 when every offset is 64-bit, 32 when offsets must
	// stay below 2^31 elements.
	indexBits int
	// tmaBox is, for a family that loads A and B through tensor maps
	// (gemm_params.h's tma_a, tma_b), the rows of A's and B's box (the
	// manifest's tma_box; the family must then need 16-byte alignment);
	// nil for the others. Its wrappers take the parameters as a
	// __grid_constant__, so that the maps stay in parameter space, where
	// the copy engine reads them.
	tmaBox func(t tile) [2]int
	// minBlocks is __launch_bounds__'s second argument (0: none); 1 gives
	// the register cap at entry that setmaxnreg needs.
	minBlocks int
	// model is the analytic model's view of the family.
	model model
	// scalings are the e4m3 scaling modes the family's e4m3 instances
	// apply (nil: the family has no e4m3 instances).
	scalings []kernels.Scaling
	// persistent: launched with one block per SM at most, walking the
	// tiles (KernelSpec.Persistent).
	persistent bool
	// cluster: blocks per thread-block cluster along x (the wrapper's
	// __cluster_dims__, KernelSpec.Cluster); 0 or 1: none. clusterAlongN:
	// a cluster takes consecutive N tiles, not M tiles
	// (KernelSpec.ClusterAlongN).
	cluster       int
	clusterAlongN bool
	// streamK: the family's blocks share the tiles' k-tiles and reduce
	// split tiles themselves (KernelSpec.Reduction stream_k; persistent,
	// maxSplitK 1).
	streamK bool
	// interleavedSplitK: split z of S takes k-tiles z, z + S, z + 2S, … of
	// the whole K (ws_schedule_il), not the contiguous K range [z·kps,
	// (z+1)·kps). The launch is the same (split_k partials in the workspace,
	// splitkReduce); the kernel reads split_k only and ignores k_per_split,
	// so the manifest and the planner need nothing more (any split_k ≤
	// maxSplitK; a split past the k-tiles writes zero partials).
	interleavedSplitK bool
	// repack: the family's kernels run on copies of A and B that
	// repackKernel writes (KernelSpec.RepackKernel); their instances are
	// element-aligned (tile.aligned false) though they load through TMA.
	repack bool
	// tmaStoreBox: the family's kernels stage D in shared memory and store
	// it through gemm_params.h's tma_d (ws_epilogue_tma.cuh's ws_epi_tma) in
	// boxes of {columns, rows} of the tile: the manifest's tma_store_box,
	// and d_ptr_align, d_ld_align 16 (what TMA needs of D). nil: the
	// register epilogue.
	tmaStoreBox func(t tile) [2]int
}

// tmaStoreBox is ws_epi_tma's box of D: 64 columns (128 bytes of 16-bit
// elements, the 128-byte swizzle's span; 32 columns and the 64-byte swizzle
// for a BN that is not a multiple of 64) by 64 rows (a consumer's rows);
// with SWAP (swapTMAStoreBox) 64 columns by the tile's BM tokens.
func tmaStoreBox(t tile) [2]int {
	if t.bn%64 != 0 {
		return [2]int{32, 64}
	}
	return [2]int{64, 64}
}
func swapTMAStoreBox(t tile) [2]int { return [2]int{64, t.bm} }

// rowScalings are the modes a kernel that scales its accumulator before
// the epilogue applies (scales.cuh: per-tensor device scalars or folded
// scalars, per row); block128 needs the promotion in the main loop.
var rowScalings = []kernels.Scaling{kernels.ScalingTensor, kernels.ScalingRow}

// elemBytes is the element size of a kernel's inputs: e4m3 (fp8) or 16-bit.
func elemBytes(fp8 bool) int {
	if fp8 {
		return 1
	}
	return 2
}

// depthKind is what a family's pipeline depth counts.
type depthKind int

const (
	// registerSlices: K slices per register stage (two stages: the
	// manifest says 1, registers only); the name says u<depth>.
	registerSlices depthKind = iota
	// smemStages: shared-memory stages; the name says s<depth>.
	smemStages
)

// model holds the parameters of kernels.Model that a family decides.
type model struct {
	kind        string               // kernels.ModelDecode or kernels.ModelTiled
	rateShare   func(t tile) float64 // share of the peak dense rate a kernel reaches
	streamShare float64              // share of the read bandwidth its loads reach
	rasterGroup int                  // M tiles that share one DRAM pass over the weights
}

// tile is what every kernel has, whatever its family's template arguments:
// the block tile, the warps and the pipeline depth.
type tile struct {
	bm, bn  int  // rows of A (tokens) and of B (output columns) per block
	bk      int  // K per main-loop step: a warp's slice (decode) or the k-tile (tiled)
	warps   int  // warps per block
	depth   int  // what family.depth says
	aligned bool // 16-byte loads; false: element loads (family.elementLoads)
}

// align is the byte alignment a kernel with this tile needs of A, B, lda·size
// and ldb·size.
func (t tile) align(elem int) int {
	if t.aligned {
		return 16
	}
	return elem
}

// kernelArgs is one kernel's template value arguments (those after
// <T, TOut>); each family has its own type.
type kernelArgs interface {
	family() *family
	tile() tile
	// values are the arguments in template order (ints and bools).
	values() []any
	// class is the kernel's reduction class (class.go), "" for none.
	class() string
	// check mirrors the template's static_asserts, so that a bad instance
	// fails go test here rather than nvcc on the GPU runner.
	check() error
}

// families is every family the generator knows, in the order of the README's
// kernel table.
var families = []*family{&decodeFMA, &decodeMMA, &decodeMMAStream, &tiledMMA, &tiledWGMMA, &wsWGMMA, &wsWGMMASwap, &wsWGMMAPP, &wsWGMMAMC2, &wsWGMMAPPMC2, &wsWGMMAMC2N,
	&wsWGMMASK, &wsWGMMASwapSK, &wsWGMMARP, &wsWGMMASwapRP, &wsWGMMASKRP, &wsWGMMASwapSKRP, &wsWGMMAB128, &wsWGMMASwapB128,
	&wsWGMMATS, &wsWGMMAMC2TS, &wsWGMMAMC2NTS, &wsWGMMASKTS, &wsWGMMASwapTS, &wsWGMMASwapSKTS, &wsWGMMAB128TS, &wsWGMMASwapB128TS, &wsWGMMAIL}

// flatShare is a rate share that does not depend on the tile.
func flatShare(share float64) func(tile) float64 {
	return func(tile) float64 { return share }
}

// tileShare is the rate share of a tiled family that reaches share with
// large tiles: operand bytes per flop fall with the tile's r = BM·BN/(BM+BN)
// (64 for 128×128), and a tile with r < 64 reaches share·√(r/64); element
// loads take issue slots from the mma (half the share).
func tileShare(share float64) func(tile) float64 {
	return func(t tile) float64 {
		s := share
		s *= math.Sqrt(math.Min(1, float64(t.bm*t.bn)/float64(t.bm+t.bn)/64))
		if !t.aligned {
			s /= 2
		}
		return s
	}
}

// rasterGroup is rasterHeader's RASTER_GROUP (a test compares them): M
// tiles whose blocks run together and share one pass over the weights.
const (
	rasterGroup  = 8
	rasterHeader = "block_tile.cuh"
)

// decodeFMA: decode_fma.cuh, CUDA-core FMA for M = 1…16 and any alignment.
var decodeFMA = family{
	name: "decode_fma", header: "decode_fma.cuh", template: "gr::decode_fma",
	depth: registerSlices, elementLoads: true,
	smemBytes: func(tile, int) int { return 0 },
	// Per slice a thread loads bk/32 (VEC) elements of each of the bn rows.
	loadBytes: func(t tile, elem int) int { return t.depth * t.bn * (t.bk / 32) * elem },
	maxSplitK: 16, indexBits: 64,
	// CUDA-core FMA: a twelfth of the tensor-core rate; weights stream once
	// per M tile at the full read bandwidth.
	model:    model{kind: kernels.ModelDecode, rateShare: flatShare(1.0 / 12), streamShare: 1, rasterGroup: 1},
	scalings: rowScalings,
}

// decodeFMAArgs: decode_fma<T, TOut, BM, BN, VEC, WARPS, U>.
type decodeFMAArgs struct {
	bm, bn, vec, warps, u int // VEC: elements per load (16 bytes, or 1: one element)
	fp8                   bool
}

func (a decodeFMAArgs) family() *family { return &decodeFMA }
func (a decodeFMAArgs) tile() tile {
	return tile{bm: a.bm, bn: a.bn, bk: 32 * a.vec, warps: a.warps, depth: a.u, aligned: a.vec > 1}
}
func (a decodeFMAArgs) values() []any { return []any{a.bm, a.bn, a.vec, a.warps, a.u} }
func (a decodeFMAArgs) check() error {
	if a.vec*elemBytes(a.fp8) != 16 && a.vec != 1 {
		return errors.New("VEC makes a 16-byte load (8 16-bit or 16 e4m3 elements) or is 1 (element loads)")
	}
	return nil
}

// decodeMMA: decode_mma.cuh, mma.sync with the weights on the 16-row side,
// for M = 1…16.
var decodeMMA = family{
	name: "decode_mma", header: "decode_mma.cuh", template: "gr::decode_mma",
	depth:     registerSlices,
	smemBytes: func(tile, int) int { return 0 },
	// Per slice a lane loads LV 16-byte vectors of each of its bn/8 weight
	// rows (a slice is 64·LV bytes of K).
	loadBytes: func(t tile, elem int) int { return t.depth * (t.bk * elem / 64) * (t.bn / 8) * 16 },
	maxSplitK: 16, indexBits: 64,
	// mma.sync with a narrow token side: a quarter of the peak.
	model:    model{kind: kernels.ModelDecode, rateShare: flatShare(0.25), streamShare: 1, rasterGroup: 1},
	scalings: rowScalings,
}

// decodeMMAStream: the same template with the ld_stream load policy
// (global_load.cuh): every load of the next register stage issued before the
// current one is converted (with ld_cached ptxas sinks them to their use,
// leaving one stage in flight), weights past L1. Experimental: the model is
// decode_mma's.
var decodeMMAStream = func() family {
	f := decodeMMA
	f.name = "decode_mma_stream"
	return f
}()

// loadPolicy is decode_mma's LD template argument: how a register stage's
// global loads are issued (global_load.cuh).
type loadPolicy string

const (
	ldCached loadPolicy = ""              // the template's default, gr::ld_cached
	ldStream loadPolicy = "gr::ld_stream" // decode_mma_stream
)

// decodeMMAArgs: decode_mma<T, TOut, BM/8, BN/16, WARPS, U, LV[, LD]>.
type decodeMMAArgs struct {
	bm, bn, warps, u, lv int // LV: 16-byte vectors per lane per row and slice
	fp8                  bool
	ld                   loadPolicy
}

func (a decodeMMAArgs) family() *family {
	if a.ld == ldStream {
		return &decodeMMAStream
	}
	return &decodeMMA
}
func (a decodeMMAArgs) tile() tile {
	return tile{bm: a.bm, bn: a.bn, bk: 64 / elemBytes(a.fp8) * a.lv, warps: a.warps, depth: a.u, aligned: true}
}
func (a decodeMMAArgs) values() []any {
	v := []any{a.bm / 8, a.bn / 16, a.warps, a.u, a.lv}
	if a.ld != ldCached {
		v = append(v, string(a.ld))
	}
	return v
}
func (a decodeMMAArgs) check() error {
	if a.bm != 8 && a.bm != 16 || a.bn%16 != 0 || a.lv < 1 {
		return errors.New("BM is 8 or 16 (one or two n8 token tiles), BN a multiple of 16, LV ≥ 1")
	}
	return nil
}

// tiledMMA: tiled_mma.cuh, mma.sync from swizzled shared memory fed by a
// multistage cp.async pipeline (or element loads), for mid and large M.
var tiledMMA = family{
	name: "tiled_mma", header: "tiled_mma.cuh", template: "gr::tiled_mma",
	depth: smemStages, elementLoads: true,
	// STAGES k-tiles of A and B.
	smemBytes: func(t tile, elem int) int { return t.depth * (t.bm + t.bn) * t.bk * elem },
	loadBytes: tiledLoadBytes,
	maxSplitK: 16, indexBits: 64,
	// Measured 0.40–0.47 of the peak with large tiles on the H200
	// (docs/perf/2026-11-30-h200-tiled); a block waits at a barrier per
	// k-tile for its slowest load, and every byte makes a shared-memory
	// round trip: 0.8 of the decode kernels' streaming rate.
	model: model{kind: kernels.ModelTiled, rateShare: tileShare(0.45), streamShare: 0.8, rasterGroup: rasterGroup},
}

// tiledLoadBytes is a tiled block's B k-tile spread over its threads.
func tiledLoadBytes(t tile, elem int) int { return t.bn * t.bk * elem / (t.warps * 32) }

// tiledMMAArgs: tiled_mma<T, TOut, BM, BN, BK, WM, WN, STAGES, ALIGNED>.
type tiledMMAArgs struct {
	bm, bn, bk, wm, wn, stages int // WM × WN warps
	aligned                    bool
}

func (a tiledMMAArgs) family() *family { return &tiledMMA }
func (a tiledMMAArgs) tile() tile {
	return tile{bm: a.bm, bn: a.bn, bk: a.bk, warps: a.wm * a.wn, depth: a.stages, aligned: a.aligned}
}
func (a tiledMMAArgs) values() []any {
	return []any{a.bm, a.bn, a.bk, a.wm, a.wn, a.stages, a.aligned}
}
func (a tiledMMAArgs) check() error {
	switch {
	case a.wm < 1 || a.wn < 1 || a.bm%(16*a.wm) != 0 || a.bn%(16*a.wn) != 0:
		return errors.New("warp tiles (BM/WM × BN/WN) are multiples of 16×16")
	case a.stages < 2:
		return errors.New("STAGES ≥ 2 (at least double buffering)")
	}
	return loaderCheck(a.bm, a.bn, a.bk, a.wm*a.wn*32)
}

// loaderCheck mirrors tile_loader.cuh's and swizzle.cuh's static_asserts for
// the loaders of a BM×BK and a BN×BK tile by threads threads.
func loaderCheck(bm, bn, bk, threads int) error {
	if bk < 16 || bk&(bk-1) != 0 {
		return errors.New("BK is a power of two ≥ 16 (swizzle)")
	}
	cpr := bk / 8 // 16-byte chunks per row
	step := threads / cpr
	if threads%cpr != 0 || step == 0 || bm%step != 0 || bn%step != 0 || bm/step > 32 || bn/step > 32 {
		return fmt.Errorf("the %d threads must tile the k-tiles' chunks: rows step %d must divide BM %d and BN %d, ≤ 32 chunks a thread",
			threads, step, bm, bn)
	}
	return nil
}

// tiledWGMMA: tiled_wgmma.cuh (sm_90a), wgmma m64n128k16 from shared memory
// in the 128-byte swizzle, fed by cp.async.
var tiledWGMMA = family{
	name: "tiled_wgmma", header: "tiled_wgmma.cuh", template: "gr::tiled_wgmma",
	depth: smemStages, sm90a: true,
	// STAGES k-tiles of A and B, and 1024 bytes to align them.
	smemBytes: func(t tile, elem int) int { return t.depth*(t.bm+t.bn)*t.bk*elem + 1024 },
	loadBytes: tiledLoadBytes,
	maxSplitK: 16, indexBits: 64,
	// Measured 0.65–0.82 of the roofline at M ≥ 1024 on the H200
	// (docs/perf/2026-11-30-h200-wgmma); loads as tiled_mma's.
	model: model{kind: kernels.ModelTiled, rateShare: tileShare(0.7), streamShare: 0.8, rasterGroup: rasterGroup},
}

// tiledWGMMAArgs: tiled_wgmma<T, TOut, BM, BN, STAGES>; BK is 64 (one
// 128-byte row), a warpgroup per 64 rows of BM.
type tiledWGMMAArgs struct{ bm, bn, stages int }

func (a tiledWGMMAArgs) family() *family { return &tiledWGMMA }
func (a tiledWGMMAArgs) tile() tile {
	return tile{bm: a.bm, bn: a.bn, bk: 64, warps: a.bm / 16, depth: a.stages, aligned: true}
}
func (a tiledWGMMAArgs) values() []any { return []any{a.bm, a.bn, a.stages} }
func (a tiledWGMMAArgs) check() error {
	switch {
	case a.bm < 64 || a.bm%64 != 0 || a.bn < 128 || a.bn%128 != 0:
		return errors.New("BM a multiple of 64 (warpgroups), BN of 128 (wgmma n128)")
	case a.stages < 3:
		return errors.New("STAGES ≥ 3 (one loading, one multiplied, one in the tensor cores)")
	}
	return loaderCheck(a.bm, a.bn, 64, a.bm/64*128)
}

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
var wsWGMMASwap = wsFamily("ws_wgmma_swap", wsSwapModel, rowScalings)

// wsSwapModel is the model of the ws_wgmma kernels with SWAP.
var wsSwapModel = model{kind: kernels.ModelDecode, rateShare: flatShare(0.6), streamShare: 0.85, rasterGroup: 1}

// wsWGMMAPP: the same template with PP, ping-pong consumers (each takes
// whole 128-row tiles, alternately, so one's epilogue overlaps the other's
// main loop) under a persistent grid, for large M. Measured 5–8 % faster
// than ws_wgmma's best at M ≥ 1024, K = 4096 in e4m3 on the H200
// (docs/perf/2026-12-01-h200-fp8, call 4), and 0.92 against 0.90 of cuBLAS
// in bf16 (docs/perf/2026-12-01-h200-tma, v6).
var wsWGMMAPP = func() family {
	f := wsFamily("ws_wgmma_pp", model{kind: kernels.ModelTiled, rateShare: tileShare(0.9), streamShare: 0.9, rasterGroup: rasterGroup}, rowScalings)
	f.persistent = true
	return f
}()

// wsWGMMAMC2 and wsWGMMAPPMC2: ws_wgmma and ws_wgmma_pp with MC = 2,
// clusters of two blocks along M under a persistent grid: a cluster takes
// two consecutive M tiles of one N tile, and each block loads half of the
// shared B box into both blocks' shared memory (TMA multicast), halving the
// weights' L2 traffic. Measured on the H200 (docs/perf/2026-12-01-h200-mc,
// call 2): the best candidate at 11 of 18 shapes with M ≥ 1024 and K ≥
// 4096, large-M ×cuBLAS 0.91 → 0.94.
var (
	wsWGMMAMC2   = wsMulticast(wsFamily("ws_wgmma_mc2", model{kind: kernels.ModelTiled, rateShare: tileShare(0.88), streamShare: 0.9, rasterGroup: 2 * rasterGroup}, rowScalings))
	wsWGMMAPPMC2 = wsMulticast(wsFamily("ws_wgmma_pp_mc2", model{kind: kernels.ModelTiled, rateShare: tileShare(0.9), streamShare: 0.9, rasterGroup: 2 * rasterGroup}, rowScalings))
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
	return f
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
	wsWGMMAMC2NTS = func() family {
		f := wsWGMMAMC2N
		f.name = "ws_wgmma_mc2n_ts"
		return wsTMAStore(f, true)
	}()
)

// wsWGMMASKTS: ws_wgmma_sk with the TMA-store epilogue — the stream-K
// tiles (M ≈ 257…1024, where the partial last wave is split along K) whose
// finishing block stores its tile through TMA. The partials between blocks
// stay fp32 in the workspace (ws_streamk.cuh); only the finished tile is
// staged. Why: at M = 1024, N = 4096 the register epilogue of the 128x256
// tile costs 5.7 µs more than the TMA store at K = 64 and 6.9 µs at K =
// 4096 (docs/perf/2026-12-04-h200, call 1). Experimental (not yet run).
var wsWGMMASKTS = func() family {
	f := wsWGMMASK
	f.name = "ws_wgmma_sk_ts"
	return wsTMAStore(f, true)
}()

// wsTMAStore makes f a family whose kernels store D through TMA, with the
// staging buffer in their shared memory; persistent sets KernelSpec.Persistent.
func wsTMAStore(f family, persistent bool) family {
	f.tmaStoreBox, f.persistent = tmaStoreBox, f.persistent || persistent
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
// Dispatch grid, as its register twin. Experimental (not yet run).
var wsWGMMASwapTS = wsSwapTMAStore(wsFamily("ws_wgmma_swap_ts", wsSwapModel, rowScalings))

// wsWGMMASwapSKTS: ws_wgmma_swap_sk (stream-K: a tile's K split among
// blocks, summed in the kernel in a fixed order) with the TMA store of the
// finished tile: the mid-M routes that split K today (o at M = 64…128,
// ×0.79–0.81 of cuBLAS) pay the fp32 partials' round trip through the
// workspace and a second launch. Experimental (not yet run).
var wsWGMMASwapSKTS = wsSwapTMAStore(wsStreamK(wsFamily("ws_wgmma_swap_sk_ts", wsSwapModel, rowScalings)))

// wsSwapTMAStore makes swap family f store D through TMA: a BM x 64 staging
// buffer per consumer (BN / 64 consumers), boxes of 64 x BM.
func wsSwapTMAStore(f family) family {
	f.tmaStoreBox = swapTMAStoreBox
	f.smemBytes = func(t tile, elem int) int { return wsSmemBytes(t, elem) + t.bm*t.bn*2 }
	return f
}

// wsWGMMAB128TS and wsWGMMASwapB128TS: the 128-block e4m3 kernels with the
// TMA store (the scales are applied in the main loop, so the epilogue is
// the 16-bit kernels'). The e4m3 kernels at M ≥ 1024 run at 0.6–0.76× of
// _scaled_mm, where the register epilogue's 5.7 µs (16-bit, M = 1024, N =
// 4096: docs/perf/2026-12-04-h200, call 1) is a larger share of a GEMM half
// as long. Experimental (not yet run), as the per-tensor and per-row e4m3
// TMA-store instances of ws_wgmma_ts and ws_wgmma_swap_ts.
var (
	wsWGMMAB128TS     = wsTMAStore(wsFamily("ws_wgmma_b128_ts", wsModel, []kernels.Scaling{kernels.ScalingBlock}), true)
	wsWGMMASwapB128TS = wsSwapTMAStore(wsFamily("ws_wgmma_swap_b128_ts", wsSwapModel, []kernels.Scaling{kernels.ScalingBlock}))
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
	wsWGMMASwapSK = wsStreamK(wsFamily("ws_wgmma_swap_sk", wsSwapModel, rowScalings))
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
	return f
}()

// wsWGMMARP, wsWGMMASwapRP, wsWGMMASKRP and wsWGMMASwapSKRP: the same
// kernels for problems whose pointers, leading dimensions or K rule out TMA
// (N = 769, K = 5125 ran on the cp.async kernels at 0.52–0.81 of cuBLAS on
// the H200): the plan's first launch copies A and B to the workspace at a
// 16-byte pitch (repack.cuh). Experimental: not yet run on a GPU.
var (
	wsWGMMARP       = wsRepack(wsFamily("ws_wgmma_rp", wsModel, nil))
	wsWGMMASwapRP   = wsRepack(wsFamily("ws_wgmma_swap_rp", wsSwapModel, nil))
	wsWGMMASKRP     = wsRepack(wsStreamK(wsFamily("ws_wgmma_sk_rp", wsModel, nil)))
	wsWGMMASwapSKRP = wsRepack(wsStreamK(wsFamily("ws_wgmma_swap_sk_rp", wsSwapModel, nil)))
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
	return f
}

// wsWGMMAB128 and wsWGMMASwapB128: the same template with B128, e4m3 with
// 128-block scales (1×128 of A, 128×128 of B), promoted to fp32 at every
// 128-element k-tile. Not yet measured: the model is their unscaled twins'.
var (
	wsWGMMAB128     = wsFamily("ws_wgmma_b128", wsModel, []kernels.Scaling{kernels.ScalingBlock})
	wsWGMMASwapB128 = wsFamily("ws_wgmma_swap_b128", wsSwapModel, []kernels.Scaling{kernels.ScalingBlock})
)

// wsFamily is a family over ws_wgmma.cuh: TMA boxes of BM and BN rows,
// split-K through the workspace, 64-bit offsets, one block per SM.
func wsFamily(name string, m model, scalings []kernels.Scaling) family {
	return family{
		name: name, header: "ws_wgmma.cuh", template: "gr::ws_wgmma",
		depth: smemStages, sm90a: true, minBlocks: 1,
		smemBytes: wsSmemBytes, loadBytes: tiledLoadBytes,
		maxSplitK: 16, indexBits: 64,
		tmaBox:   func(t tile) [2]int { return [2]int{t.bm, t.bn} },
		model:    m,
		scalings: scalings,
	}
}

// wsSmemBytes: STAGES stages of KB boxes (128 bytes of K) of A and B, and
// 1024 bytes to align them.
func wsSmemBytes(t tile, elem int) int { return t.depth*(t.bm+t.bn)*t.bk*elem + 1024 }

// wsWGMMAArgs: ws_wgmma<T, TOut, BM, BN, STAGES, SWAP, NACC, KB, PP, B128,
// MC>. The generator fixes NACC by the wgmma N (independent accumulator
// chains where they fit: 4 up to n64, 2 at n128, else 1); PP kernels are
// persistent; KB boxes of 128 bytes make the k-tile 64·KB (16-bit) or
// 128·KB (e4m3) elements; B128 applies 128-block scales; MC = 2 (mc2) makes
// multicast clusters of two blocks; sk the stream-K scheduler; rp the repack
// variant (the same template; the plan copies the operands first).
type wsWGMMAArgs struct {
	bm, bn, stages, kb  int
	swap, fp8, b128, pp bool
	mc2, sk, rp         bool
	mc2n                bool // clusters of two along N, sharing A
	ts                  bool // D staged in shared memory, stored by TMA (EPI = gr::ws_epi_tma)
	il                  bool // interleaved split-K (SCHED = gr::ws_schedule_il)
}

func (a wsWGMMAArgs) family() *family {
	switch {
	case a.il:
		return &wsWGMMAIL
	case a.ts && a.swap && a.sk:
		return &wsWGMMASwapSKTS
	case a.ts && a.swap && a.b128:
		return &wsWGMMASwapB128TS
	case a.ts && a.b128:
		return &wsWGMMAB128TS
	case a.ts && a.swap:
		return &wsWGMMASwapTS
	case a.ts && a.sk:
		return &wsWGMMASKTS
	case a.ts && a.mc2n:
		return &wsWGMMAMC2NTS
	case a.ts && a.mc2:
		return &wsWGMMAMC2TS
	case a.ts:
		return &wsWGMMATS
	case a.rp && a.sk && a.swap:
		return &wsWGMMASwapSKRP
	case a.rp && a.sk:
		return &wsWGMMASKRP
	case a.rp && a.swap:
		return &wsWGMMASwapRP
	case a.rp:
		return &wsWGMMARP
	case a.sk && a.swap:
		return &wsWGMMASwapSK
	case a.sk:
		return &wsWGMMASK
	case a.mc2n:
		return &wsWGMMAMC2N
	case a.pp && a.mc2:
		return &wsWGMMAPPMC2
	case a.mc2:
		return &wsWGMMAMC2
	case a.pp:
		return &wsWGMMAPP
	case a.swap && a.b128:
		return &wsWGMMASwapB128
	case a.b128:
		return &wsWGMMAB128
	case a.swap:
		return &wsWGMMASwap
	}
	return &wsWGMMA
}

// rows is wgmma's 64-row side of the tile, cols its N.
func (a wsWGMMAArgs) rows() int {
	if a.swap {
		return a.bn
	}
	return a.bm
}
func (a wsWGMMAArgs) cols() int {
	if a.swap {
		return a.bm
	}
	return a.bn
}

// consumers is the consumer warpgroups: one for a 64-row side, else two
// (of 64 rows each, or of 128 as two 64-row blocks when BM = 256).
func (a wsWGMMAArgs) consumers() int {
	if a.rows() == 64 {
		return 1
	}
	return 2
}
func (a wsWGMMAArgs) tile() tile {
	return tile{bm: a.bm, bn: a.bn, bk: 128 / elemBytes(a.fp8) * a.kb, warps: (a.consumers() + 1) * 4, depth: a.stages, aligned: !a.rp}
}
func (a wsWGMMAArgs) nacc() int {
	switch {
	case !a.swap || a.cols() > 128:
		return 1
	case a.cols() == 128:
		return 2
	}
	return 4
}
func (a wsWGMMAArgs) values() []any {
	mc := 1
	if a.mc2 || a.mc2n {
		mc = 2
	}
	v := []any{a.bm, a.bn, a.stages, a.swap, a.nacc(), a.kb, a.pp, a.b128, mc}
	switch {
	case a.sk:
		v = append(v, "gr::ws_stream_k") // the scheduler policy (default gr::ws_schedule)
	case a.il:
		v = append(v, "gr::ws_schedule_il")
	case a.mc2n:
		v = append(v, "gr::ws_schedule_n")
	case a.ts:
		v = append(v, "gr::ws_schedule") // named, for the epilogue policy after it
	}
	if a.ts {
		v = append(v, "gr::ws_epi_tma") // the epilogue policy (default gr::ws_epi_reg)
	}
	return v
}
func (a wsWGMMAArgs) check() error {
	switch c := a.cols(); {
	case a.rows() != 64 && a.rows() != 128 && a.rows() != 256:
		return errors.New("the 64-row side (BM, or BN with SWAP) is 64 or 128 (one or two consumer warpgroups) or BM = 256 (two of 128 rows)")
	case a.rows() == 256 && (a.swap || a.fp8 || a.pp || a.sk || a.rp || a.b128 || a.il):
		return errors.New("BM = 256: 16-bit, no swap, ping-pong, stream-K, repack, block scales or interleaved split-K")
	case c != 16 && c != 32 && c != 64 && c != 96 && c != 128 && c != 192 && c != 256:
		return errors.New("wgmma's N (BN, or BM with SWAP) is 16, 32, 64, 96, 128, 192 or 256")
	case a.bm%8 != 0 || a.bn%8 != 0:
		return errors.New("boxes of whole 8-row swizzle atoms")
	case a.stages < 2:
		return errors.New("STAGES ≥ 2 (a stage loading while one is multiplied)")
	case a.kb < 1:
		return errors.New("KB ≥ 1")
	case a.pp && (a.swap || a.b128 || a.bm != 128 || a.bn != 128):
		return errors.New("ping-pong: two consumers of whole 128×128 tiles (each holds two 64×128 accumulators), no swap, no block scales")
	case a.fp8 && (a.kb != 1 || a.pp || !a.swap && a.bn > 192):
		return errors.New("e4m3: KB = 1 (a k-tile is the 128-element block promoted to fp32), no ping-pong, BN ≤ 192 (the partial sums need registers beside the accumulator)")
	case a.mc2n && (a.mc2 || a.swap || a.fp8 || a.pp || a.sk || a.rp || a.b128 || a.bm/2%8 != 0):
		return errors.New("clusters along N: 16-bit, no swap, ping-pong, stream-K, repack or block scales, half of BM whole 8-row swizzle atoms")
	case a.mc2 && (a.swap || a.fp8 || a.bn/2%8 != 0):
		return errors.New("multicast clusters: no swap, 16-bit inputs (e4m3 not yet measured), half of BN whole 8-row swizzle atoms")
	case a.rp && (a.fp8 || a.pp || a.mc2):
		return errors.New("repack: 16-bit inputs, no ping-pong, no clusters")
	case a.sk && (a.pp || a.mc2 || a.b128):
		return errors.New("stream-K: no ping-pong (consumers of whole tiles), no clusters, no block scales")
	case a.ts && (a.pp || a.rp || !a.swap && a.bn%32 != 0 || a.sk && a.b128):
		return errors.New("TMA-stored D: no ping-pong or repack, BN a multiple of the 32-column box (swap: any BM)")
	case a.il && (a.swap || a.fp8 || a.pp || a.sk || a.mc2 || a.mc2n || a.ts || a.rp || a.b128):
		return errors.New("interleaved split-K: 16-bit, no swap, ping-pong, stream-K, clusters, TMA-stored D, repack or block scales")
	case a.b128 && (!a.fp8 || !a.swap && a.bn != 128):
		return errors.New("128-block scales: e4m3, KB = 1 (a k-tile is one k-block), BN = 128 unless SWAP (one B block per consumer)")
	}
	return nil
}

// splitkReduce is splitk_reduce.cuh's kernel: it sums the split-K partials
// in fixed order and applies the epilogue, one kernel per output type; every
// split-K kernel's manifest entry names it.
var splitkReduce = struct {
	header, template string
	threads          int
}{header: "splitk_reduce.cuh", template: "gr::splitk_reduce", threads: 256}

// reduceSuffix is the reduce kernel's name after "gemmroute_<arch>_".
func reduceSuffix(out kernels.DType) string { return fmt.Sprintf("splitk_reduce_f32_%s", out) }
