package gemmtest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/gemmroute/gemmroute/dispatch"
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

// Problem fills the shape fields of a dispatch.Problem (no pointers).
func (c Case) Problem(dt dispatch.DType) dispatch.Problem {
	p := dispatch.Problem{M: c.M, N: c.N, K: c.K, In: dt, Out: dt, LDA: c.LDA, LDB: c.LDB, LDC: c.LDC, Alpha: c.Alpha, Beta: c.Beta}
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

// Data is one problem's host operands (dtype bits) and its expected output.
type Data struct {
	Case
	P       dispatch.Problem
	A, B, C []uint16 // A: (M-1)*LDA+K+OffA, B: (N-1)*LDB+K+OffB, C: M*LDC
	Bias    []uint16
	Ref     []float64 // float64 reference D, M*N dense (at sampled elements only when Sampled is set)
	Mag     []float64 // |alpha|·Σ|a·b| + |beta·c| + |bias| per element, for tolerances
	Sampled []bool    // nil: the reference covers every element; else the ones it covers
}

// Random returns n random dtype-dt values in [-1, 1], never all zeros. Large
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
				part[i] = ToBits(dt, float32(r.Float64()*2-1))
			}
		})
	}
	wg.Wait()
	return s
}

// Fill draws fresh random inputs (never zeros) in [-1, 1] and computes the
// float64 reference of every element.
func Fill(c Case, dt dispatch.DType, rng *rand.Rand) *Data { return FillSampled(c, dt, rng, 0) }

// FillSampled is Fill with the reference computed at about samples elements
// (the first and last row and column always among them) when M·N exceeds it;
// samples ≤ 0 means all. Check still requires every element to be written.
func FillSampled(c Case, dt dispatch.DType, rng *rand.Rand, samples int) *Data {
	p := c.Problem(dt)
	d := &Data{Case: c, P: p}
	rnd := func(n int) []uint16 { return Random(dt, n, rng) }
	d.A = rnd(max(0, (p.M-1)*p.LDA+p.K) + c.OffA)
	d.B = rnd(max(0, (p.N-1)*p.LDB+p.K) + c.OffB)
	d.C = rnd(p.M * p.LDC)
	if c.Bias {
		d.Bias = rnd(p.N)
	}
	d.Ref, d.Mag = make([]float64, p.M*p.N), make([]float64, p.M*p.N)
	if samples <= 0 || p.M*p.N <= samples {
		for i := range d.Ref {
			d.Ref[i], d.Mag[i] = d.reference(i/p.N, i%p.N)
		}
		return d
	}
	d.Sampled = make([]bool, p.M*p.N)
	for _, i := range []int{0, p.N - 1, (p.M - 1) * p.N, p.M*p.N - 1} {
		d.Sampled[i] = true
	}
	for range samples {
		d.Sampled[rng.IntN(p.M*p.N)] = true
	}
	for i, ok := range d.Sampled {
		if ok {
			d.Ref[i], d.Mag[i] = d.reference(i/p.N, i%p.N)
		}
	}
	return d
}

// reference is element (m, n) of D in float64 and its magnitude bound.
func (d *Data) reference(m, n int) (float64, float64) {
	p, dt := d.P, d.P.In
	var s, mag float64
	for k := 0; k < p.K; k++ {
		x := float64(FromBits(dt, d.A[d.OffA+m*p.LDA+k])) * float64(FromBits(dt, d.B[d.OffB+n*p.LDB+k]))
		s += x
		mag += math.Abs(x)
	}
	v := float64(p.Alpha) * s
	mag *= math.Abs(float64(p.Alpha))
	if p.Beta != 0 {
		c := float64(p.Beta) * float64(FromBits(dt, d.C[m*p.LDC+n]))
		v, mag = v+c, mag+math.Abs(c)
	}
	if d.Bias != nil {
		b := float64(FromBits(dt, d.Bias[n]))
		v, mag = v+b, mag+math.Abs(b)
	}
	return v, mag
}

// Poison is the 16-bit pattern outputs are filled with before a run: a NaN
// in both f16 and bf16, so an unwritten element cannot pass.
const Poison uint16 = 0x7fff

// Check compares an output buffer (M*LDC elements, poisoned before the run)
// with the reference: every element of the M×N region within tolerance, the
// padding between N and LDC still poisoned, and the relative Frobenius error
// under 1e-2. It returns a description of the first failures, or nil.
func (d *Data) Check(out []uint16) error {
	p, dt := d.P, d.P.Out
	rtol := 1.0 / 128 // one bf16 ulp of rounding, with room
	if dt == dispatch.F16 {
		rtol = 1.0 / 1024
	}
	var bad []string
	var num, den float64
	for m := 0; m < p.M; m++ {
		for n := 0; n < p.LDC; n++ {
			got := out[m*p.LDC+n]
			if n >= p.N {
				if got != Poison {
					bad = append(bad, fmt.Sprintf("D[%d,%d] in the LDC padding was written (%#x)", m, n, got))
				}
				continue
			}
			g := float64(FromBits(dt, got))
			if d.Sampled != nil && !d.Sampled[m*p.N+n] {
				if math.IsNaN(g) {
					bad = append(bad, fmt.Sprintf("D[%d,%d] not written (NaN)", m, n))
				}
				continue
			}
			ref, mag := d.Ref[m*p.N+n], d.Mag[m*p.N+n]
			num += (g - ref) * (g - ref)
			den += ref * ref
			if math.IsNaN(g) || math.Abs(g-ref) > rtol*math.Abs(ref)+1e-5*mag+1e-6 {
				bad = append(bad, fmt.Sprintf("D[%d,%d] = %g, want %g (|Σ|=%g)", m, n, g, ref, mag))
			}
		}
	}
	if den > 0 && math.Sqrt(num/den) > 1e-2 {
		bad = append(bad, fmt.Sprintf("relative error ‖D−ref‖/‖ref‖ = %.3g > 1e-2", math.Sqrt(num/den)))
	}
	if len(bad) > 0 {
		if len(bad) > 5 {
			bad = append(bad[:5], fmt.Sprintf("… %d more", len(bad)-5))
		}
		return fmt.Errorf("%s %s M=%d N=%d K=%d: %d mismatches: %v", d.Name, dt, p.M, p.N, p.K, len(bad), bad)
	}
	return nil
}

// CPU computes D on the host the way a kernel must: float32 accumulation,
// then the epilogue, rounded to the output dtype. It is the suite's CPU
// backend: it must pass Check like every GPU kernel.
func (d *Data) CPU() []uint16 {
	p, dt := d.P, d.P.In
	out := make([]uint16, p.M*p.LDC)
	for i := range out {
		out[i] = Poison
	}
	for m := 0; m < p.M; m++ {
		for n := 0; n < p.N; n++ {
			var s float32
			for k := 0; k < p.K; k++ {
				s += FromBits(dt, d.A[d.OffA+m*p.LDA+k]) * FromBits(dt, d.B[d.OffB+n*p.LDB+k])
			}
			v := p.Alpha * s
			if p.Beta != 0 {
				v += p.Beta * FromBits(dt, d.C[m*p.LDC+n])
			}
			if d.Bias != nil {
				v += FromBits(dt, d.Bias[n])
			}
			out[m*p.LDC+n] = ToBits(p.Out, v)
		}
	}
	return out
}
