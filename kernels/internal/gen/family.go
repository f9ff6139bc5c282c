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
// families and its kernelArgs type (here, or in a file of its own as
// ws_family.go), list its instances in
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
	// ws is, for a family over ws_wgmma.cuh, the variant of the template
	// its kernels instantiate (wsSpec): stated once, in its descriptor.
	ws wsSpec
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
	// tailParts: a stream-K family whose tail split is the plan's
	// (Params.TailParts; KernelSpec.Reduction stream_k_parts).
	tailParts bool
	// splitFixed: a persistent family whose kernels split every tile into
	// the plan's parts and sum them in the kernel (Params.TailParts;
	// KernelSpec.Reduction split_fixed; maxSplitK 1).
	splitFixed bool
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
	hopperShare float64              // its sm90 image's builds reach this share of rateShare and streamShare (0: all)
	fp8Share    float64              // its e4m3 builds reach this share of rateShare and streamShare (0: all)
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
	&wsWGMMATS, &wsWGMMAMC2TS, &wsWGMMAMC2NTS, &wsWGMMASKTS, &wsWGMMASwapTS, &wsWGMMASwapSqTS, &wsWGMMASwapWFTS, &wsWGMMASwapSKTS, &wsWGMMASwapMC2, &wsWGMMASwapMC2TS, &wsWGMMAShTS, &wsWGMMASwapShTS, &wsWGMMASKShTS, &wsWGMMASKTPShTS, &wsWGMMAKSTS, &wsWGMMAB128TS, &wsWGMMASwapB128TS, &wsWGMMAIL, &wsWGMMARNTS, &wsWGMMARNMC2TS, &wsWGMMARNMC2NTS, &wsWGMMARNSKTS, &wsWGMMAPPTS, &wsWGMMAPPMC2TS, &wsWGMMALPTS, &wsWGMMASwapLPTS, &wsWGMMAExTS, &wsWGMMASwapExTS}

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
	// per M tile at the full read bandwidth. The e4m3 builds: the FMA rate is
	// the 16-bit one (the model doubles the peak for e4m3's tensor cores),
	// and each element's conversion slows the stream — at M = 1 on the H200
	// the best e4m3 build read gate_up's weights at 1.5 TB/s where decode_mma
	// read them at 3.5 (docs/perf/2026-12-02-h200-c, c4/tune-row.csv; the
	// e4m3 builds took 2.51× their estimates, decode_mma's 1.34×): half the
	// shares.
	model:    model{kind: kernels.ModelDecode, rateShare: flatShare(1.0 / 12), fp8Share: 0.5, streamShare: 1, rasterGroup: 1},
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
var decodeMMAStream = renamed(decodeMMA, "decode_mma_stream")

// renamed is family f under another name: a variant whose kernels differ
// only in a template argument that nothing the generator, the filter or
// the model reads depends on, or whose other differences the caller
// applies to the copy.
func renamed(f family, name string) family {
	f.name = name
	return f
}

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
	// round trip: 0.8 of the decode kernels' streaming rate. The sm90
	// image's builds (mma.sync and cp.async beside wgmma and TMA) ran
	// 0.31–0.41 of the H100 preset's peak with 128x128 tiles at
	// M = 513…2048 (call T513, docs/perf/2026-12-08-h100), and took 1.16×
	// their estimates where the warp-specialized kernels took 0.7×: their
	// rate and stream shares are 0.8 of the family's (0.36 of the peak).
	// With the stream-K tail in EstimateSeconds, that brought the model's
	// choice among the non-experimental kernels from 1.12× to 1.04× the
	// fastest there, and from 1.42× to 1.16× on the H200's tune of
	// 2026-12-02 (docs/perf/2026-12-08-c).
	model: model{kind: kernels.ModelTiled, rateShare: tileShare(0.45), hopperShare: 0.8, streamShare: 0.8, rasterGroup: rasterGroup},
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

// splitkReduce is splitk_reduce.cuh's kernel: it sums the split-K partials
// in fixed order and applies the epilogue, one kernel per output type; every
// split-K kernel's manifest entry names it.
var splitkReduce = struct {
	header, template string
	threads          int
}{header: "splitk_reduce.cuh", template: "gr::splitk_reduce", threads: 256}

// reduceSuffix is the reduce kernel's name after "gemmroute_<arch>_".
func reduceSuffix(out kernels.DType) string { return fmt.Sprintf("splitk_reduce_f32_%s", out) }
