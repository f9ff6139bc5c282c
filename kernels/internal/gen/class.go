package main

import "fmt"

// Reduction classes (KernelSpec.ReductionClass): each kernelArgs type's
// class method names the order in which its kernel sums K for one output
// element, from the template's code. Two kernels share a class when, for
// the same K and split-K factor, every element's sum runs the same
// instruction kind and k-step over the same K positions in the same order
// into the same number of accumulator chains (NACC), combined in the same
// order, and ends in the same epilogue arithmetic: fp32 alpha·acc, then +
// beta·C (contracted to one fma), then + bias, rounded once to the output
// type (epilogue.cuh's store_out, ws_epilogue.cuh). What a class leaves out
// — the tile (BM, BN, BK, KB), the stages, the unroll U, the warps of a tile
// that do not split K, swizzles, load policies, persistence, clusters,
// repacking — changes which block computes an element and when, not its
// sum. Split-K is not in the class: the planner fixes it per class (the
// batch-invariant mode runs split-K 1). That the class is all that decides
// the bits is a hypothesis, one per family below, until the GPU test
// (dispatch/gpu_invariant_test.go) runs two kernels of every class on the
// same rows and finds them equal; in particular that a tensor-core
// instruction sums an element's k-step the same way whatever the tile's N
// and the element's place in it, and that ws_epilogue's tail path (which
// adds a zero bias: -0 becomes +0) agrees with its vector path and with
// store_out.

// class: decode_fma's lanes each sum VEC consecutive elements of every
// 32·VEC·WARPS-element round, round after round, by fmaf in one chain
// (the U rounds of a stage are consecutive rounds, so U does not change
// it), then a shuffle tree across the 32 lanes and the WARPS warps in
// order: the order is VEC's and WARPS', whatever BM and BN (its own class:
// no other family reduces across lanes).
func (a decodeFMAArgs) class() string { return fmt.Sprintf("fma.v%d.w%d", a.vec, a.warps) }

// class: decode_mma's warps sum interleaved slices of 4·EV·LV elements
// with mma.sync m16n8k16 over each slice's lane permutation of K (so LV
// and WARPS fix the order; e4m3 converts each 32-byte step to two f16
// steps), then across warps through shared memory in order. The load
// policy (decode_mma_stream) issues the same loads earlier: the same class.
func (a decodeMMAArgs) class() string { return fmt.Sprintf("mma16.slice.lv%d.w%d", a.lv, a.warps) }

// class: tiled_mma sums every k-tile's BK/16 mma.sync m16n8k16 steps into
// one accumulator per element, k-tile after k-tile: one chain in K order,
// whatever BK, the warp layout and the stages.
func (a tiledMMAArgs) class() string { return "mma16.seq" }

// class: tiled_wgmma sums wgmma k16 steps into one accumulator in K order,
// as ws_wgmma does with NACC = 1: a hypothesis that cp.async-fed and
// TMA-fed wgmma of other N agree.
func (a tiledWGMMAArgs) class() string { return "wgmma16.seq" }

// class: ws_wgmma puts wgmma step kk of a k-tile into chain kk % NACC and
// adds the chains into the first in order at the end; since 4·KB is a
// multiple of NACC, chain c holds the steps c, c+NACC, … of K whatever KB.
// e4m3 sums each 128-element k-tile in NACC k32 chains and promotes it into
// the fp32 accumulator (with the block scales for B128), so its class
// counts the chains of a k-tile. Stream-K tiles split along K where the
// last wave ends, which depends on M: no class. An interleaved split-K
// (ws_wgmma_il: split z takes k-tiles z, z + S, …) sums other K positions
// into each split than the contiguous split-K of the same S: its own class
// ("….il"; call F on an H100 found ws_wgmma_il at split-K 2 and 4 differing
// from tiled_wgmma in wgmma16.seq).
func (a wsWGMMAArgs) class() string {
	c := fmt.Sprintf("wgmma16.nacc%d", a.nacc())
	switch {
	case a.sk():
		return ""
	case a.fp8:
		c = fmt.Sprintf("wgmma32.p128.nacc%d", a.nacc())
	case a.nacc() == 1:
		c = "wgmma16.seq"
	}
	if a.il() {
		c += ".il"
	}
	return c
}
