package gemmtest

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/gemmroute/gemmroute/dispatch"
	"github.com/gemmroute/gemmroute/kernels"
)

// Types is what a test problem computes in and, for e4m3 per-tensor
// scaling, whether the two scales are device pointers (ScaleAPtr,
// ScaleBPtr) rather than the scalars ScaleA and ScaleB that the launch
// folds into alpha.
type Types struct {
	dispatch.Types
	ScalePtrs bool
}

// TypesOf is what problem p computes in.
func TypesOf(p dispatch.Problem) Types {
	return Types{Types: p.Types, ScalePtrs: p.Types.Scaled() && p.ScaleAPtr != 0}
}

// Same is dtype dt in and out (a 16-bit problem).
func Same(dt dispatch.DType) Types { return Types{Types: dispatch.Types{In: dt, Out: dt}} }

// AllTypes lists every combination a kernel may be checked in: each
// kernels.AllTypes, e4m3 per-tensor once with the scalars and once with
// pointers.
func AllTypes() []Types {
	var out []Types
	for _, t := range kernels.AllTypes() {
		out = append(out, Types{Types: t})
		if t.Scaling == dispatch.ScalingTensor {
			out = append(out, Types{Types: t, ScalePtrs: true})
		}
	}
	return out
}

// String is the types' text ("bf16", "e4m3→bf16/row"), with " (scale
// pointers)" for per-tensor scales through pointers.
func (t Types) String() string {
	if t.ScalePtrs && t.Scaling == dispatch.ScalingTensor {
		return t.Types.String() + " (scale pointers)"
	}
	return t.Types.String()
}

// The e4m3 tolerance (Tolerance) and how it follows from the arithmetic.
//
// Let t_k = a_k·sa·b_k·sb be the dequantised products of element (m, n)
// (sa, sb the scales of k's block) and S = |alpha|·Σ_k |t_k| + |beta·c| +
// |bias|, the magnitude Data.Mag holds. A kernel computes:
//
//  1. a_k·b_k: e4m3 has 4 significant bits and exponents 2^-9…2^8, so a
//     product has at most 8 significant bits within 2^-18…2^18: exact in
//     float32.
//  2. The sum of a 128-block's products. Hopper's fp8 MMA (wgmma) keeps
//     about 14 significant bits in its accumulator (DeepSeek-V3 technical
//     report, §3.3.2: "limited to retaining around 14 bits"), and its
//     error is relative to the largest of the products an instruction adds,
//     not to their sum: on the H200, with codes over 12 binades, the
//     128-block kernels' worst error was 2^-10.2 of Σ|t_k| (call 6, K = 208,
//     f16 output; 2^-12.1 in call 5's bf16 case: docs/perf/2026-12-01-h200-fp8).
//     Within one block it is taken as at most eps8 = 2^-9 times the block's
//     Σ|t_k| (2.3× the worst measured): four
//     instructions' truncations of a partial sum that is at most Σ|t_k| and
//     in practice ~√ of it (TestE4M3ToleranceCoversHopperAccumulator
//     checks the model: truncation toward zero to 12 fraction bits after
//     every 32 products stays inside). eps8 also covers float32
//     accumulation of a block (γ_128 = 128·2^-24 = 2^-17), and of a whole
//     K without blocks rigorously for K ≤ 32768 (γ_K ≤ 2^-9), statistically
//     beyond (√K·2^-24 ≪ 2^-9). Summed over the blocks: eps8·S.
//     This is the accuracy of an accumulator promoted to float32 every 128
//     k (torch._scaled_mm's default, use_fast_accum=False; the 128-block
//     kernels, and every ws e4m3 kernel since call 6). One that keeps the
//     fp8 accumulator over all of K grows its error with every 32 k and
//     fails it on long K (TestE4M3ToleranceRejectsUnpromotedAccumulator;
//     on the H200, call 5, unpromoted ws kernels missed a 2^-13 bound from
//     K = 1024 by up to 2.4×).
//  3. Float32 after the MMA: the blocks' scaled sums accumulated (γ_KB,
//     KB = ⌈K/128⌉), each scaled by sa·sb (2 roundings), alpha (folded
//     alpha·sa·sb: 2 more), beta·c and bias (3): at most (KB+8)·2^-24·S.
//  4. Rounding to the output: u_out = 2^-8 (bf16) or 2^-11 (f16) of the
//     value rounded, |ref| + the error above.
//
// Hence |D − ref| ≤ u_out·|ref| + (1+u_out)·(2^-9 + (KB+8)·2^-24)·S + 1e-6
// (the last for f16's subnormal outputs, half-spacing 2^-25). NaN never
// passes. 16-bit inputs keep the suite's tolerance, u16·|ref| + 1e-5·S +
// 1e-6 with u16 = 2^-7 (bf16) or 2^-10 (f16): one output ulp with room.
const eps8 = 0x1p-9

// outRound is the relative rounding of an output dtype (a half ulp), or for
// 16-bit inputs the suite's allowance of one ulp.
func (t Types) outRound() float64 {
	switch {
	case !t.Scaled() && t.Out == dispatch.F16:
		return 0x1p-10
	case !t.Scaled():
		return 0x1p-7
	case t.Out == dispatch.F16:
		return 0x1p-11
	}
	return 0x1p-8
}

// Tolerance is the largest |D − ref| Check accepts at an element whose
// reference is ref and whose magnitude is mag (Data.Mag), for inner
// dimension k (see eps8 for the derivation).
func (t Types) Tolerance(k int, ref, mag float64) float64 {
	u := t.outRound()
	if !t.Scaled() {
		return u*math.Abs(ref) + 1e-5*mag + 1e-6
	}
	kb := (k + kernels.ScaleBlockK - 1) / kernels.ScaleBlockK
	return u*math.Abs(ref) + (1+u)*(eps8+float64(kb+8)*0x1p-24)*mag + 1e-6
}

// ToleranceText says in one line what Tolerance accepts, for reports.
func (t Types) ToleranceText() string {
	if !t.Scaled() {
		return fmt.Sprintf("%s: |D−ref| ≤ %g·|ref| + 1e-5·Σ|terms| + 1e-6 (one output ulp)", t, t.outRound())
	}
	return fmt.Sprintf("%s: |D−ref| ≤ 2^%d·|ref| + (1+2^%d)·(2^-9 + (⌈K/128⌉+8)·2^-24)·Σ|terms| + 1e-6 "+
		"(e4m3 products exact in fp32; the fp8 MMA's accumulation within a 128-k block as measured on the H200 (2^-10.2·Σ|terms| at worst), fp32 across blocks and in the epilogue; %s output rounding)",
		t, int(math.Log2(t.outRound())), int(math.Log2(t.outRound())), t.Out)
}

// scales returns the dequantisation scales of A's row m and B's row n at
// k-block kb (1 and 1 for 16-bit inputs).
func (d *Data) scales(m, n, kb int) (sa, sb float32) {
	p := d.P
	switch {
	case p.Types.In != dispatch.E4M3:
		return 1, 1
	case d.ScaleA == nil:
		return p.ScaleA, p.ScaleB
	}
	ia, ib := p.Types.Scaling.At(m, n, kb, p.M, p.K)
	return d.ScaleA[ia], d.ScaleB[ib]
}

// drawScales draws an e4m3 problem's scales (RandomScales).
func (d *Data) drawScales(rng *rand.Rand) {
	d.ScaleA, d.ScaleB = RandomScales(&d.P, d.ScalePtrs, rng)
}

// RandomScales draws the scales of e4m3 problem p (random, positive, in
// [0.01, 2]) in the layout of p.Scaling (dispatch.Problem's): for
// ScalingTensor without ptrs it sets the scalars p.ScaleA and p.ScaleB and
// returns nil; otherwise it returns the vectors for ScaleAPtr and ScaleBPtr
// (one float each for ScalingTensor).
func RandomScales(p *dispatch.Problem, ptrs bool, rng *rand.Rand) (sa, sb []float32) {
	draw := func(n int) []float32 {
		s := make([]float32, n)
		for i := range s {
			s[i] = randomScale(rng)
		}
		return s
	}
	if p.Types.Scaling == dispatch.ScalingTensor && !ptrs {
		p.ScaleA, p.ScaleB = randomScale(rng), randomScale(rng)
		return nil, nil
	}
	a, b := p.Types.Scaling.Floats(int64(p.M), int64(p.N), int64(p.K))
	return draw(int(a)), draw(int(b))
}
