package dispatch

import (
	"fmt"
	"math"

	"github.com/gemmroute/gemmroute/kernels"
)

// DevicePtr is a device address (a CUdeviceptr). Zero is nil.
type DevicePtr uintptr

// Problem is one GEMM in the nn.Linear (TN) layout:
//
//	D[M,N] = Alpha · A[M,K] · B[N,K]ᵀ + Beta · C[M,N] + Bias[N]
//
// A (activations) and B (weights) are row-major with leading dimensions LDA
// and LDB (elements between rows); C and D are row-major and share LDC. C may
// equal D (in place) and may be nil when Beta is 0; Bias may be nil. D must
// not overlap A, B or Bias, nor C unless C == D (the kernels read those while
// D is written). Alpha is taken literally, as in BLAS: set it to 1 for a
// plain product. M = 0 or N = 0 is a valid no-op; K = 0 gives
// D = Beta·C + Bias. M, N, K and the leading dimensions are at most 2^31,
// and no operand spans more than 2^48 bytes.
//
// E4M3 inputs are dequantised (real = stored · scale) as Types.Scaling says; the
// kernels apply the scales to the fp32 accumulator, then the epilogue:
//
//   - ScalingTensor: the scalars ScaleA and ScaleB (finite, nonzero), or
//     instead device pointers ScaleAPtr and ScaleBPtr to one float32 each
//     (scalars 0), so that a captured graph replays with new scales;
//   - ScalingRow: ScaleAPtr → float32 [M] (a scale per token), ScaleBPtr →
//     float32 [N] (per output channel);
//   - ScalingBlock with ScaleBlock = 128: ScaleAPtr → float32
//     [ceil(K/128)][M] (A's 1×128 blocks, M-major: block (m, kb) at
//     kb·M + m), ScaleBPtr → float32 [ceil(N/128)][ceil(K/128)] (B's
//     128×128 blocks); products are promoted to fp32 at every k-block.
//
// Scale vectors are 4-byte aligned and must not overlap D; ScaleFloats
// says how many float32 each holds. Which scale fields a mode takes holds
// for every shape; with K = 0 the accumulator is zero and no scale is read
// (the launch passes the kernel folded per-tensor scaling and no pointers).
// Inputs of 16 bits take no scaling, ScaleBlock or scale pointers (ScaleA
// and ScaleB are ignored).
type Problem struct {
	M, N, K       int       // tokens, output features, input features
	Types         Types     // the input dtype (A and B), output dtype (C, D, Bias) and e4m3 scaling
	LDA, LDB, LDC int       // leading dimensions, in elements
	A, B, C, D    DevicePtr // activations [M,K], weights [N,K], addend and output [M,N]
	Bias          DevicePtr // optional, [N] of type Types.Out
	Alpha, Beta   float32   // D = Alpha·A·Bᵀ + Beta·C (+ Bias)
	ScaleA        float32   // E4M3, ScalingTensor with scalars
	ScaleB        float32   // E4M3, ScalingTensor with scalars
	ScaleBlock    int       // E4M3, ScalingBlock only: 128
	ScaleAPtr     DevicePtr // E4M3: device scales of A (see Types.Scaling)
	ScaleBPtr     DevicePtr // E4M3: device scales of B
}

// maxOperandBytes bounds the bytes one operand spans: 2^48, the GPUs'
// virtual address space. A larger extent is a mistake, never memory.
const maxOperandBytes = 1 << 48

// maxDim bounds M, N, K and the leading dimensions, so that every extent fits
// comfortably in int64 arithmetic.
const maxDim = 1 << 31

// empty reports whether the problem writes nothing (M = 0 or N = 0).
func (p *Problem) empty() bool { return p.M == 0 || p.N == 0 }

// elements returns the largest element count among A, B and C/D as their
// leading dimensions span them; kernels with 32-bit indexing need it ≤ 2^31.
func (p *Problem) elements() int64 {
	ext := func(rows, ld int) int64 {
		if rows == 0 {
			return 0
		}
		return int64(rows-1)*int64(ld) + int64(ld)
	}
	return max(ext(p.M, p.LDA), ext(p.N, p.LDB), ext(p.M, p.LDC))
}

// argError is the *ArgError of field, holding v, with its rule formatted.
func argError(field string, v any, rule string, args ...any) error {
	return &ArgError{Field: field, Value: v, Rule: fmt.Sprintf(rule, args...)}
}

// Validate checks every field and returns an *ArgError (wrapping
// ErrInvalidArgument) for the first rule broken; a nil p is one too.
func (p *Problem) Validate() error {
	bad := argError
	if p == nil {
		return bad("Problem", "nil", "a nil *Problem: pass the address of a Problem")
	}
	for _, d := range []struct {
		name string
		v    int
	}{{"M", p.M}, {"N", p.N}, {"K", p.K}, {"LDA", p.LDA}, {"LDB", p.LDB}, {"LDC", p.LDC}} {
		if d.v < 0 {
			return bad(d.name, d.v, "must not be negative")
		}
		if d.v > maxDim {
			return bad(d.name, d.v, "must be at most 2^31")
		}
	}
	if err := p.Types.Check(); err != nil {
		te := err.(*kernels.TypesError) // Check returns nothing else
		return &ArgError{Field: "Types." + te.Field, Value: p.Types, Rule: te.Rule}
	}
	for _, f := range []struct {
		name string
		v    float32
	}{{"Alpha", p.Alpha}, {"Beta", p.Beta}} {
		if math.IsNaN(float64(f.v)) || math.IsInf(float64(f.v), 0) {
			return bad(f.name, f.v, "must be finite")
		}
	}
	if err := p.checkScaling(); err != nil {
		return err
	}
	if p.empty() {
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
	}{{"A", p.A, p.Types.In.Size()}, {"B", p.B, p.Types.In.Size()}, {"C", p.C, p.Types.Out.Size()}, {"D", p.D, p.Types.Out.Size()}, {"Bias", p.Bias, p.Types.Out.Size()},
		{"ScaleAPtr", p.ScaleAPtr, 4}, {"ScaleBPtr", p.ScaleBPtr, 4}} {
		if uintptr(f.v)%uintptr(f.size) != 0 {
			return bad(f.name, fmt.Sprintf("%#x", uintptr(f.v)), "must be aligned to its element size (%d bytes)", f.size)
		}
	}
	spans := p.spans()
	for _, o := range spans {
		if o.bytes > maxOperandBytes {
			return bad(o.name, fmt.Sprintf("%#x", uintptr(o.ptr)), "spans %d bytes, more than any GPU's address space (2^48): check the leading dimension and sizes", o.bytes)
		}
		if uint64(o.ptr)+o.bytes < uint64(o.ptr) {
			return bad(o.name, fmt.Sprintf("%#x", uintptr(o.ptr)), "pointer plus its %d bytes wraps around the address space", o.bytes)
		}
	}
	d := spans[spanD]
	for i, o := range spans {
		if i == spanD || i == spanC && o.ptr == d.ptr {
			continue // D itself; in place: C == D, sharing LDC
		}
		if o.overlaps(d) {
			return bad("D", fmt.Sprintf("%#x", uintptr(d.ptr)), "overlaps %s (%#x, %d bytes): the kernels read %s while writing D (only C == D, in place, may alias)", o.name, uintptr(o.ptr), o.bytes, o.name)
		}
	}
	if p.scalarScales() {
		if a, _, _, _ := p.kernelScales(); math.IsInf(float64(a), 0) || math.IsNaN(float64(a)) {
			return bad("Alpha", p.Alpha, "Alpha·ScaleA·ScaleB (%g·%g·%g) overflows float32", p.Alpha, p.ScaleA, p.ScaleB)
		}
	}
	return nil
}

// checkScaling checks which scale fields p's Types.Scaling takes (whatever
// the shape; Types is valid): an *ArgError for the first rule broken, or
// nil.
func (p *Problem) checkScaling() error {
	if !p.Types.Scaled() {
		switch {
		case p.ScaleBlock != 0:
			return argError("ScaleBlock", p.ScaleBlock, "%s inputs take no scales: leave ScaleBlock 0 (e4m3 only)", p.Types.In)
		case p.ScaleAPtr != 0:
			return argError("ScaleAPtr", fmt.Sprintf("%#x", uintptr(p.ScaleAPtr)), "%s inputs take no scales: leave it nil (e4m3 only)", p.Types.In)
		case p.ScaleBPtr != 0:
			return argError("ScaleBPtr", fmt.Sprintf("%#x", uintptr(p.ScaleBPtr)), "%s inputs take no scales: leave it nil (e4m3 only)", p.Types.In)
		}
		return nil
	}
	block := 0
	if p.Types.Scaling == ScalingBlock {
		block = kernels.ScaleBlockK
	}
	if p.ScaleBlock != block {
		return argError("ScaleBlock", p.ScaleBlock, "a block size the mode does not allow: %s scaling takes %d", p.Types.Scaling, block)
	}
	if p.scalarScales() {
		for _, f := range []struct {
			name string
			v    float32
		}{{"ScaleA", p.ScaleA}, {"ScaleB", p.ScaleB}} {
			if f.v == 0 || math.IsNaN(float64(f.v)) || math.IsInf(float64(f.v), 0) {
				return argError(f.name, f.v, "e4m3 inputs need a finite, nonzero per-tensor scale (or ScaleAPtr and ScaleBPtr)")
			}
		}
		return nil
	}
	for _, f := range []struct {
		name, other string
		ptr         DevicePtr
		scalar      float32
	}{{"ScaleAPtr", "ScaleA", p.ScaleAPtr, p.ScaleA}, {"ScaleBPtr", "ScaleB", p.ScaleBPtr, p.ScaleB}} {
		switch {
		case f.ptr == 0 && p.Types.Scaling == ScalingTensor:
			return argError(f.name, f.ptr, "nil pointer beside the other scale pointer: tensor scaling takes both ScaleAPtr and ScaleBPtr, or neither and the scalars ScaleA, ScaleB")
		case f.ptr == 0:
			return argError(f.name, f.ptr, "nil pointer: %s scaling reads its scales from ScaleAPtr and ScaleBPtr", p.Types.Scaling)
		case f.scalar != 0:
			return argError(f.other, f.scalar, "must be 0 when ScaleAPtr and ScaleBPtr hold the scales (%s scaling): fold a constant factor into Alpha", p.Types.Scaling)
		}
	}
	return nil
}

// scalarScales reports whether p's scales are the per-tensor scalars ScaleA
// and ScaleB (e4m3, tensor scaling, no scale pointers).
func (p *Problem) scalarScales() bool {
	return p.Types.Scaled() && p.Types.Scaling == ScalingTensor && p.ScaleAPtr == 0 && p.ScaleBPtr == 0
}

// ScaleFloats returns how many float32 the kernels read through ScaleAPtr
// and ScaleBPtr (see Problem): 1 and 1 for tensor scaling through pointers;
// M and N for row scaling; ceil(K/128)·M and ceil(N/128)·ceil(K/128) for
// block scaling. It returns 0, 0 where nothing is read: for 16-bit inputs,
// the scalars ScaleA and ScaleB, K = 0 and empty problems (M or N 0).
// Counts saturate at math.MaxInt64 (for sizes Validate refuses) rather than
// overflow.
func (p *Problem) ScaleFloats() (a, b int64) {
	if !p.Types.Scaled() || p.scalarScales() || p.M <= 0 || p.N <= 0 || p.K <= 0 {
		return 0, 0
	}
	return p.Types.Scaling.Floats(int64(p.M), int64(p.N), int64(p.K))
}

// operandSpan is the byte range one operand's rows cover.
type operandSpan struct {
	name  string
	ptr   DevicePtr
	bytes uint64 // 0 for an absent operand
}

// overlaps reports whether two present spans share a byte.
func (o operandSpan) overlaps(q operandSpan) bool {
	if o.ptr == 0 || q.ptr == 0 || o.bytes == 0 || q.bytes == 0 {
		return false
	}
	return uint64(o.ptr) < uint64(q.ptr)+q.bytes && uint64(q.ptr) < uint64(o.ptr)+o.bytes
}

// The indices of spans' operands.
const (
	spanA = iota
	spanB
	spanC
	spanD
	spanBias
	spanScaleA
	spanScaleB
	numSpans
)

// spans returns the byte ranges of A, B, C, D, Bias and the scale vectors
// (C's only when Beta ≠ 0: otherwise it is not read), from their rows and
// leading dimensions and ScaleFloats, indexed by spanA…spanScaleB. Call it
// on a non-empty problem with valid dimensions and scaling.
func (p *Problem) spans() [numSpans]operandSpan {
	ext := func(rows, ld, cols, size int) uint64 {
		if rows == 0 || cols == 0 {
			return 0
		}
		return (uint64(rows-1)*uint64(ld) + uint64(cols)) * uint64(size)
	}
	in, out := p.Types.In.Size(), p.Types.Out.Size()
	c := operandSpan{"C", p.C, ext(p.M, p.LDC, p.N, out)}
	if p.Beta == 0 {
		c.bytes = 0
	}
	bias := operandSpan{"Bias", p.Bias, 0}
	if p.Bias != 0 {
		bias.bytes = uint64(p.N * out)
	}
	sa, sb := p.ScaleFloats()
	return [numSpans]operandSpan{
		spanA:      {"A", p.A, ext(p.M, p.LDA, p.K, in)},
		spanB:      {"B", p.B, ext(p.N, p.LDB, p.K, in)},
		spanC:      c,
		spanD:      {"D", p.D, ext(p.M, p.LDC, p.N, out)},
		spanBias:   bias,
		spanScaleA: {"ScaleAPtr", p.ScaleAPtr, uint64(sa) * 4},
		spanScaleB: {"ScaleBPtr", p.ScaleBPtr, uint64(sb) * 4},
	}
}

// kernelScales maps p's scaling onto the kernels' parameters
// (kernels.Params Alpha, ScaleA, ScaleB, Scaling): 16-bit inputs and e4m3
// per-tensor scalars fold into Alpha (ScaleFolded, Alpha·ScaleA·ScaleB for
// e4m3); with K = 0 nothing is scaled (ScaleFolded, Alpha: the accumulator
// is zero); otherwise the scale pointers with ScaleTensor, ScaleRow or
// ScaleBlock as Scaling says.
func (p *Problem) kernelScales() (alpha float32, scaleA, scaleB uintptr, scaling int32) {
	switch {
	case !p.Types.Scaled():
		return p.Alpha, 0, 0, kernels.ScaleFolded
	case p.scalarScales():
		return p.Alpha * p.ScaleA * p.ScaleB, 0, 0, kernels.ScaleFolded
	case p.K == 0:
		return p.Alpha, 0, 0, kernels.ScaleFolded
	}
	return p.Alpha, uintptr(p.ScaleAPtr), uintptr(p.ScaleBPtr), p.Types.Scaling.Code()
}

// scalingText says an e4m3 problem's scaling for Explain's and
// ErrNoKernel's first line (", row scaling (device vectors)"); "" for
// 16-bit inputs.
func (p *Problem) scalingText() string {
	if !p.Types.Scaled() {
		return ""
	}
	how := "device scalars"
	switch {
	case p.scalarScales():
		how = "scalars folded into alpha"
	case p.Types.Scaling != ScalingTensor:
		how = "device vectors"
	}
	return fmt.Sprintf(", %s scaling (%s)", p.Types.Scaling, how)
}

// kernelTypes is what a kernel must compute in to run p: Types, with
// per-tensor scaling when K = 0, where the launch folds (kernelScales).
func (p *Problem) kernelTypes() Types {
	t := p.Types
	if p.K == 0 {
		t.Scaling = ScalingTensor
	}
	return t
}
