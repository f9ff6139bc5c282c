package dispatch

import (
	"fmt"
	"math"
)

// DevicePtr is a device address (a CUdeviceptr). Zero is nil.
type DevicePtr uintptr

// Problem is one GEMM in the nn.Linear (TN) layout:
//
//	D[M,N] = Alpha · A[M,K] · B[N,K]ᵀ + Beta · C[M,N] + Bias[N]
//
// A (activations) and B (weights) are row-major with leading dimensions LDA
// and LDB (elements between rows); C and D are row-major and share LDC. C may
// equal D (in place) and may be nil when Beta is 0; Bias may be nil. Alpha is
// taken literally, as in BLAS: set it to 1 for a plain product. M = 0 or
// N = 0 is a valid no-op; K = 0 gives D = Beta·C + Bias.
//
// For E4M3 inputs, ScaleA and ScaleB are the per-tensor dequantisation scales
// (real = stored · scale); they must be set (finite, nonzero).
type Problem struct {
	M, N, K       int
	In, Out       DType // input dtype (A and B) and output dtype (C and D)
	LDA, LDB, LDC int
	A, B, C, D    DevicePtr
	Bias          DevicePtr // optional, [N] of type Out
	Alpha, Beta   float32
	ScaleA        float32 // E4M3 only
	ScaleB        float32 // E4M3 only
}

// MaxDim bounds M, N, K and the leading dimensions, so that every extent fits
// comfortably in int64 arithmetic.
const MaxDim = 1 << 31

// Empty reports whether the problem writes nothing (M = 0 or N = 0).
func (p *Problem) Empty() bool { return p.M == 0 || p.N == 0 }

// Elements returns the largest element count among A, B and C/D as their
// leading dimensions span them; kernels with 32-bit indexing need it ≤ 2^31.
func (p *Problem) Elements() int64 {
	ext := func(rows, ld int) int64 {
		if rows == 0 {
			return 0
		}
		return int64(rows-1)*int64(ld) + int64(ld)
	}
	return max(ext(p.M, p.LDA), ext(p.N, p.LDB), ext(p.M, p.LDC))
}

// Validate checks every field and returns an *ArgError (wrapping
// ErrInvalidArgument) for the first rule broken.
func (p *Problem) Validate() error {
	bad := func(field string, v any, rule string, args ...any) error {
		return &ArgError{Field: field, Value: v, Rule: fmt.Sprintf(rule, args...)}
	}
	for _, d := range []struct {
		name string
		v    int
	}{{"M", p.M}, {"N", p.N}, {"K", p.K}, {"LDA", p.LDA}, {"LDB", p.LDB}, {"LDC", p.LDC}} {
		if d.v < 0 {
			return bad(d.name, d.v, "must not be negative")
		}
		if d.v > MaxDim {
			return bad(d.name, d.v, "must be at most 2^31")
		}
	}
	switch p.In {
	case F16, BF16, E4M3:
	default:
		return bad("In", p.In, "input dtype must be f16, bf16 or e4m3")
	}
	switch p.Out {
	case F16, BF16:
	default:
		return bad("Out", p.Out, "output dtype must be f16 or bf16")
	}
	if p.In != E4M3 && p.In != p.Out {
		return bad("Out", p.Out, "unsupported dtype pair %s→%s: 16-bit inputs produce the same dtype", p.In, p.Out)
	}
	for _, f := range []struct {
		name string
		v    float32
	}{{"Alpha", p.Alpha}, {"Beta", p.Beta}} {
		if math.IsNaN(float64(f.v)) || math.IsInf(float64(f.v), 0) {
			return bad(f.name, f.v, "must be finite")
		}
	}
	if p.In == E4M3 {
		for _, f := range []struct {
			name string
			v    float32
		}{{"ScaleA", p.ScaleA}, {"ScaleB", p.ScaleB}} {
			if f.v == 0 || math.IsNaN(float64(f.v)) || math.IsInf(float64(f.v), 0) {
				return bad(f.name, f.v, "e4m3 inputs need a finite, nonzero per-tensor scale")
			}
		}
	}
	if p.Empty() {
		return nil
	}
	if p.K > 0 && p.LDA < p.K {
		return bad("LDA", p.LDA, "must be >= K (%d): A is row-major [M,K]", p.K)
	}
	if p.K > 0 && p.LDB < p.K {
		return bad("LDB", p.LDB, "must be >= K (%d): B is row-major [N,K]", p.K)
	}
	if p.LDC < p.N {
		return bad("LDC", p.LDC, "must be >= N (%d): C and D are row-major [M,N]", p.N)
	}
	if p.K > 0 && p.A == 0 {
		return bad("A", p.A, "nil pointer with a nonzero extent (M·K > 0)")
	}
	if p.K > 0 && p.B == 0 {
		return bad("B", p.B, "nil pointer with a nonzero extent (N·K > 0)")
	}
	if p.D == 0 {
		return bad("D", p.D, "nil pointer with a nonzero extent (M·N > 0)")
	}
	if p.Beta != 0 && p.C == 0 {
		return bad("C", p.C, "nil pointer while Beta (%g) is nonzero", p.Beta)
	}
	for _, f := range []struct {
		name string
		v    DevicePtr
		size int
	}{{"A", p.A, p.In.Size()}, {"B", p.B, p.In.Size()}, {"C", p.C, p.Out.Size()}, {"D", p.D, p.Out.Size()}, {"Bias", p.Bias, p.Out.Size()}} {
		if uintptr(f.v)%uintptr(f.size) != 0 {
			return bad(f.name, fmt.Sprintf("%#x", uintptr(f.v)), "must be aligned to its element size (%d bytes)", f.size)
		}
	}
	return nil
}

// EffectiveAlpha folds the e4m3 per-tensor scales into Alpha.
func (p *Problem) EffectiveAlpha() float32 {
	if p.In == E4M3 {
		return p.Alpha * p.ScaleA * p.ScaleB
	}
	return p.Alpha
}
