package gemmtest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"

	"github.com/gemmroute/gemmroute/dispatch"
	"github.com/gemmroute/gemmroute/kernels"
)

// Case is one GEMM of the conformance table. Leading dimensions of 0 mean
// packed (K, K, N). OffA/OffB are element offsets of A and B from a 256-byte
// aligned base: nonzero offsets make the pointers misaligned.
type Case struct {
	Name          string
	M, N, K       int
	LDA, LDB, LDC int
	OffA, OffB    int
	Beta          float32
	Bias          bool
	Alpha         float32 // 0 means 1
}

// Problem fills the shape fields of a dispatch.Problem (no pointers) with
// dtype dt in and out.
func (c Case) Problem(dt dispatch.DType) dispatch.Problem { return c.ProblemOf(Same(dt)) }

// ProblemOf fills the shape and type fields of a dispatch.Problem (no
// pointers): dtypes and, for e4m3, the scaling mode (ScaleBlock 128 with
// ScalingBlock). The per-tensor scalars are FillTypes' to draw.
func (c Case) ProblemOf(t Types) dispatch.Problem {
	p := dispatch.Problem{M: c.M, N: c.N, K: c.K, Types: t.Types, LDA: c.LDA, LDB: c.LDB, LDC: c.LDC, Alpha: c.Alpha, Beta: c.Beta}
	if t.Scaling == dispatch.ScalingBlock {
		p.ScaleBlock = kernels.ScaleBlockK
	}
	if p.LDA == 0 {
		p.LDA = c.K
	}
	if p.LDB == 0 {
		p.LDB = c.K
	}
	if p.LDC == 0 {
		p.LDC = c.N
	}
	if p.Alpha == 0 {
		p.Alpha = 1
	}
	return p
}

// Awkward is the table every kernel is checked on: M = 1, bucket edges ± 1,
// N = 769, K = 5125, K not a multiple of the tile, lda > K, misaligned
// pointers, beta ≠ 0, bias.
func Awkward() []Case {
	return []Case{
		{Name: "m1", M: 1, N: 256, K: 512},
		{Name: "m1-n769-k5125", M: 1, N: 769, K: 5125},
		{Name: "m2-bias", M: 2, N: 384, K: 1024, Bias: true},
		{Name: "m3-beta", M: 3, N: 200, K: 776, Beta: 0.5},
		{Name: "m7-lda", M: 7, N: 130, K: 1000, LDA: 1032, LDB: 1040, LDC: 136},
		{Name: "m8-ktail", M: 8, N: 272, K: 2056, Bias: true, Beta: -1},
		{Name: "m9", M: 9, N: 96, K: 264},
		{Name: "m15-n769", M: 15, N: 769, K: 5128, Alpha: 0.75},
		{Name: "m16", M: 16, N: 512, K: 4096, Beta: 1, Bias: true},
		{Name: "m17", M: 17, N: 160, K: 520},
		{Name: "m33-k5125", M: 33, N: 769, K: 5125, Bias: true},
		{Name: "m130-n1030", M: 130, N: 1030, K: 200, Beta: 0.5},
		{Name: "m1100-raster", M: 1100, N: 264, K: 136, Bias: true},
		{Name: "misaligned", M: 4, N: 123, K: 997, OffA: 1, OffB: 3, Beta: 0.25},
		{Name: "misaligned-lda", M: 5, N: 64, K: 512, LDA: 515, LDB: 517},
		{Name: "k0", M: 3, N: 40, K: 0, Beta: 2, Bias: true},
	}
}

// AwkwardE4M3 are the awkward cases e4m3 kernels add to Awkward: those
// kernels need K a multiple of 16, which most of Awkward's K are not, so
// these have K multiples of 16 but not of 128 (the per-tensor and per-row
// modes on K tails; a partial last block in 128-block mode) at M = 3, 33,
// 130, 1100, N = 769 and 1030, a misaligned A and B, and K multiples of 128
// at M > 16 with partial N blocks.
func AwkwardE4M3() []Case {
	return []Case{
		{Name: "k784-m3-beta", M: 3, N: 200, K: 784, Beta: 0.5},
		{Name: "k5136-m33-n769", M: 33, N: 769, K: 5136, Bias: true},
		{Name: "k208-m130-n1030", M: 130, N: 1030, K: 208, Beta: 0.5},
		{Name: "k144-m1100", M: 1100, N: 264, K: 144, Bias: true},
		{Name: "k992-misaligned", M: 4, N: 123, K: 992, OffA: 1, OffB: 3, Beta: 0.25},
		{Name: "k1152-m17-n769", M: 17, N: 769, K: 1152, Bias: true},
		{Name: "k640-m130-n1030", M: 130, N: 1030, K: 640, Beta: 0.5},
		{Name: "k384-m1100", M: 1100, N: 264, K: 384, Bias: true, Alpha: 0.75},
	}
}

// Data is one problem's host operands (dtype bits: FromBits) and its
// expected output.
type Data struct {
	Case
	Types
	P    dispatch.Problem
	A, B []uint16 // bits of P.In (an e4m3 code in the low byte); A: (M-1)*LDA+K+OffA, B: (N-1)*LDB+K+OffB
	C    []uint16 // bits of P.Out, M*LDC
	Bias []uint16 // bits of P.Out, N
	// ScaleA and ScaleB are an e4m3 problem's scales for ScaleAPtr and
	// ScaleBPtr, laid out as dispatch.Problem says for P.Scaling; nil when
	// the scales are P's scalars ScaleA and ScaleB (and for 16-bit inputs).
	ScaleA, ScaleB []float32
	Ref            []float64 // float64 reference D, M*N dense (at sampled elements only when Sampled is set)
	Mag            []float64 // |alpha|·Σ|a·sa·b·sb| + |beta·c| + |bias| per element (scales 1 for 16-bit), for tolerances
	Sampled        []bool    // nil: the reference covers every element; else the ones it covers
}

// Random returns n random dtype-dt values, never zeros: in [-1, 1] for
// 16-bit dtypes; e4m3 codes of finite, nonzero values from 2^-9 to 7.5 in
// magnitude (a spread of 12 binades, subnormals included). Large
// buffers are drawn in parallel chunks, each seeded from rng, so the result
// depends only on rng's state.
func Random(dt dispatch.DType, n int, rng *rand.Rand) []uint16 {
	const chunk = 1 << 20
	s := make([]uint16, n)
	var wg sync.WaitGroup
	for lo := 0; lo < n; lo += chunk {
		r := rand.New(rand.NewPCG(rng.Uint64(), rng.Uint64()))
		part := s[lo:min(n, lo+chunk)]
		wg.Go(func() {
			for i := range part {
				if dt == dispatch.E4M3 {
					part[i] = randomE4M3(r)
				} else {
					part[i] = ToBits(dt, float32(r.Float64()*2-1))
				}
			}
		})
	}
	wg.Wait()
	return s
}

// Fill draws fresh random inputs (never zeros) in [-1, 1] of dtype dt (in
// and out) and computes the float64 reference of every element.
func Fill(c Case, dt dispatch.DType, rng *rand.Rand) *Data { return FillTypes(c, Same(dt), rng, 0) }

// FillSampled is Fill with the reference computed at about samples elements
// (the first and last row and column always among them) when M·N exceeds it;
// samples ≤ 0 means all. Check still requires every element to be written.
func FillSampled(c Case, dt dispatch.DType, rng *rand.Rand, samples int) *Data {
	return FillTypes(c, Same(dt), rng, samples)
}

// FillTypes is FillSampled for the dtypes and scaling mode of t: e4m3
// inputs are random codes (see Random) with random positive scales in
// [0.01, 2] (see randomScale) in t's layout, C and bias random in t.Out, and
// the reference is that of the dequantised inputs.
func FillTypes(c Case, t Types, rng *rand.Rand, samples int) *Data {
	p := c.ProblemOf(t)
	d := &Data{Case: c, Types: t, P: p}
	d.A = Random(p.Types.In, max(0, (p.M-1)*p.LDA+p.K)+c.OffA, rng)
	d.B = Random(p.Types.In, max(0, (p.N-1)*p.LDB+p.K)+c.OffB, rng)
	d.C = Random(p.Types.Out, p.M*p.LDC, rng)
	if c.Bias {
		d.Bias = Random(p.Types.Out, p.N, rng)
	}
	if p.Types.Scaled() {
		d.drawScales(rng)
	}
	d.Ref, d.Mag = make([]float64, p.M*p.N), make([]float64, p.M*p.N)
	if samples > 0 && p.M*p.N > samples {
		d.Sampled = make([]bool, p.M*p.N)
		for _, i := range []int{0, p.N - 1, (p.M - 1) * p.N, p.M*p.N - 1} {
			d.Sampled[i] = true
		}
		for range samples {
			d.Sampled[rng.IntN(p.M*p.N)] = true
		}
	}
	// The elements in parallel, a row of elements per task.
	parallel(p.M, func(m int) {
		for i := m * p.N; i < (m+1)*p.N; i++ {
			if d.Sampled == nil || d.Sampled[i] {
				d.Ref[i], d.Mag[i] = d.reference(m, i%p.N)
			}
		}
	})
	return d
}

// reference is element (m, n) of D in float64 and its magnitude bound
// |alpha|·Σ_k |a·sa·b·sb| + |beta·c| + |bias|: for e4m3 the sum over k runs
// in 128-blocks, each block's products scaled by its scales (Scale).
func (d *Data) reference(m, n int) (float64, float64) {
	p, dt := d.P, d.P.Types.In
	var s, mag float64
	for k0 := 0; k0 < p.K; k0 += kernels.ScaleBlockK {
		var bs, bm float64
		for k := k0; k < min(p.K, k0+kernels.ScaleBlockK); k++ {
			x := float64(FromBits(dt, d.A[d.OffA+m*p.LDA+k])) * float64(FromBits(dt, d.B[d.OffB+n*p.LDB+k]))
			bs += x
			bm += math.Abs(x)
		}
		sa, sb := d.scales(m, n, k0/kernels.ScaleBlockK)
		sc := float64(sa) * float64(sb)
		s, mag = s+sc*bs, mag+math.Abs(sc)*bm
	}
	v := float64(p.Alpha) * s
	mag *= math.Abs(float64(p.Alpha))
	if p.Beta != 0 {
		c := float64(p.Beta) * float64(FromBits(p.Types.Out, d.C[m*p.LDC+n]))
		v, mag = v+c, mag+math.Abs(c)
	}
	if d.Bias != nil {
		b := float64(FromBits(p.Types.Out, d.Bias[n]))
		v, mag = v+b, mag+math.Abs(b)
	}
	return v, mag
}

// Poison is the 16-bit pattern outputs are filled with before a run: a NaN
// in both f16 and bf16, so an unwritten element cannot pass.
const Poison uint16 = 0x7fff

// Check compares an output buffer (M*LDC elements, poisoned before the run)
// with the reference: every element of the M×N region within the tolerance
// (Types.Tolerance; NaN never is), the padding between N and LDC still
// poisoned, and the relative Frobenius error under 1e-2. It returns a
// description of the first failures (case, types, shape, element, got,
// want, bound), or nil.
func (d *Data) Check(out []uint16) error {
	_, err := d.check(out)
	return err
}

// Worst is the largest |D − ref| / Tolerance over the elements the
// reference covers (+Inf where one is NaN): how near out came to failing
// Check's elementwise bound (it passes below 1), for logs.
func (d *Data) Worst(out []uint16) float64 {
	w, _ := d.check(out)
	return w
}

// check is Worst and Check. Rows are checked in parallel, in chunks whose
// bounds depend only on the shape, and the chunks' sums, worst ratios and
// messages are combined in row order: the result is the same on every
// machine. Only the first messages are formatted.
func (d *Data) check(out []uint16) (float64, error) {
	p := d.P
	rows := max(1, (1<<16)/max(p.LDC, 1)) // about 64 Ki elements a chunk
	parts := make([]checkPart, (p.M+rows-1)/rows)
	parallel(len(parts), func(i int) { parts[i] = d.checkRows(out, i*rows, min(p.M, (i+1)*rows)) })
	var all checkPart
	for _, c := range parts {
		all.num, all.den, all.worst, all.n = all.num+c.num, all.den+c.den, max(all.worst, c.worst), all.n+c.n
		all.bad = append(all.bad, c.bad[:min(len(c.bad), checkMessages-len(all.bad))]...)
	}
	if all.den > 0 && math.Sqrt(all.num/all.den) > 1e-2 {
		all.n++
		if len(all.bad) < checkMessages {
			all.bad = append(all.bad, fmt.Sprintf("relative error ‖D−ref‖/‖ref‖ = %.3g > 1e-2", math.Sqrt(all.num/all.den)))
		}
	}
	if n := all.n; n > 0 {
		bad := all.bad
		if n > checkMessages {
			bad = append(bad, fmt.Sprintf("… %d more", n-checkMessages))
		}
		return all.worst, fmt.Errorf("%s %s M=%d N=%d K=%d: %d mismatches (worst |D−ref|/bound %.3g): %v", d.Name, d.Types, p.M, p.N, p.K, n, all.worst, bad)
	}
	return all.worst, nil
}

// parallel runs task(0), …, task(n−1) on GOMAXPROCS goroutines and returns
// when all have.
func parallel(n int, task func(i int)) {
	var wg sync.WaitGroup
	work := make(chan int)
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Go(func() {
			for i := range work {
				task(i)
			}
		})
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
}

// checkMessages is how many mismatches a failed check describes.
const checkMessages = 5

// checkPart is what checking some rows of D found: the sums of the relative
// error's numerator and denominator, the worst |D − ref| / bound, the count
// of mismatches and the first checkMessages of them described.
type checkPart struct {
	num, den, worst float64
	n               int
	bad             []string
}

// checkRows checks rows [lo, hi) of out (see check): the LDC padding still
// poisoned, every element written (not NaN), and the referenced ones within
// the tolerance.
func (d *Data) checkRows(out []uint16, lo, hi int) checkPart {
	p, dt := d.P, d.P.Types.Out
	isNaN := nanBits(dt)
	var c checkPart
	fail := func(f string, args ...any) {
		if c.n++; len(c.bad) < checkMessages {
			c.bad = append(c.bad, fmt.Sprintf(f, args...))
		}
	}
	for m := lo; m < hi; m++ {
		for n := 0; n < p.LDC; n++ {
			got := out[m*p.LDC+n]
			if n >= p.N {
				if got != Poison {
					fail("D[%d,%d] in the LDC padding was written (%#x)", m, n, got)
				}
				continue
			}
			if d.Sampled != nil && !d.Sampled[m*p.N+n] {
				if isNaN(got) {
					fail("D[%d,%d] not written (NaN)", m, n)
				}
				continue
			}
			g := float64(FromBits(dt, got))
			ref, mag := d.Ref[m*p.N+n], d.Mag[m*p.N+n]
			c.num += (g - ref) * (g - ref)
			c.den += ref * ref
			tol := d.Types.Tolerance(p.K, ref, mag)
			if math.IsNaN(g) || math.Abs(g-ref) > tol {
				fail("D[%d,%d] = %g, want %g ± %.3g (Σ|terms| = %g)", m, n, g, ref, tol, mag)
			}
			if r := math.Abs(g-ref) / tol; math.IsNaN(r) {
				c.worst = math.Inf(1)
			} else {
				c.worst = max(c.worst, r)
			}
		}
	}
	return c
}

// nanBits reports whether bits of dtype dt are a NaN, on the bits for the
// 16-bit floats (exponent all ones, mantissa not zero).
func nanBits(dt dispatch.DType) func(uint16) bool {
	switch dt {
	case dispatch.BF16:
		return func(h uint16) bool { return h&0x7fff > 0x7f80 }
	case dispatch.F16:
		return func(h uint16) bool { return h&0x7fff > 0x7c00 }
	}
	return func(h uint16) bool { return math.IsNaN(float64(FromBits(dt, h))) }
}

// CPU computes D on the host the way a kernel must: float32 products and
// accumulation (for e4m3 in 128-blocks, each block's sum times its scales
// in float32; per-tensor scalars folded into alpha), then the epilogue,
// rounded to the output dtype. It is the suite's CPU backend: it must pass
// Check like every GPU kernel.
func (d *Data) CPU() []uint16 {
	blk := max(d.P.K, 1)
	if d.P.Types.In == dispatch.E4M3 {
		blk = kernels.ScaleBlockK
	}
	return d.cpu(blk, 1, func(x float32) float32 { return x })
}

// cpu is CPU with the accumulator promoted to float32 (and scaled) every blk
// k, and each run of step products summed in float32 and added to the
// block's accumulator through round: (128, 1, identity) is float32
// throughout; (128, 32, truncation to 13 fraction bits) models Hopper's fp8
// MMA promoted every 128 k, (K, 32, the same) one never promoted (see
// eps8). blk must be 128 in 128-block mode.
func (d *Data) cpu(blk, step int, round func(float32) float32) []uint16 {
	p, dt := d.P, d.P.Types.In
	out := make([]uint16, p.M*p.LDC)
	for i := range out {
		out[i] = Poison
	}
	alpha := p.Alpha
	if p.Types.Scaled() {
		if d.ScaleA == nil {
			alpha = p.Alpha * p.ScaleA * p.ScaleB // folded: the scales are 1 below
		}
	}
	for m := 0; m < p.M; m++ {
		for n := 0; n < p.N; n++ {
			var s float32
			for k0 := 0; k0 < p.K; k0 += blk {
				var acc float32
				end := min(p.K, k0+blk)
				for k1 := k0; k1 < end; k1 += step {
					var part float32
					for k := k1; k < min(end, k1+step); k++ {
						part += FromBits(dt, d.A[d.OffA+m*p.LDA+k]) * FromBits(dt, d.B[d.OffB+n*p.LDB+k])
					}
					acc = round(acc + part)
				}
				if sa, sb := d.scales(m, n, k0/blk); d.ScaleA != nil {
					acc *= sa * sb
				}
				s += acc
			}
			v := alpha * s
			if p.Beta != 0 {
				v += p.Beta * FromBits(p.Types.Out, d.C[m*p.LDC+n])
			}
			if d.Bias != nil {
				v += FromBits(p.Types.Out, d.Bias[n])
			}
			out[m*p.LDC+n] = ToBits(p.Types.Out, v)
		}
	}
	return out
}
