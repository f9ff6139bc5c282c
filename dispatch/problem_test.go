package dispatch

import (
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gemmroute/gemmroute/kernels"
)

// Fake device addresses, each 2^32-aligned: planning only reads the numbers.
const (
	ptrA DevicePtr = 1 << 32
	ptrB DevicePtr = 2 << 32
	ptrC DevicePtr = 3 << 32
	ptrD DevicePtr = 4 << 32
	ptrS DevicePtr = 5 << 32 // scale vectors: ptrS and ptrS+ptrSB
	// ptrSB is B's scale vector's offset from ptrS.
	ptrSB DevicePtr = 1 << 30
)

// e4m3 makes p an e4m3→bf16 problem with scaling s: the scalars ScaleA =
// ScaleB = 1 for tensor, else scale vectors at ptrS and ptrS+ptrSB (and
// ScaleBlock 128 for block).
func e4m3(p *Problem, s Scaling) {
	p.Types.In, p.Types.Scaling = E4M3, s
	switch s {
	case ScalingTensor:
		p.ScaleA, p.ScaleB = 1, 1
	case ScalingBlock:
		p.ScaleBlock = kernels.ScaleBlockK
		fallthrough
	default:
		p.ScaleAPtr, p.ScaleBPtr = ptrS, ptrS+ptrSB
	}
}

// devScales gives an e4m3 tensor-scaled problem device scales instead of
// its scalars.
func devScales(p *Problem) {
	p.ScaleA, p.ScaleB, p.ScaleAPtr, p.ScaleBPtr = 0, 0, ptrS, ptrS+ptrSB
}

// testProblem is a valid bf16 problem with aligned pointers and packed
// leading dimensions.
func testProblem(m, n, k int) Problem {
	return Problem{M: m, N: n, K: k, Types: Types{In: BF16, Out: BF16}, LDA: k, LDB: k, LDC: n,
		A: ptrA, B: ptrB, D: ptrD, Alpha: 1}
}

func TestValidateRejects(t *testing.T) {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	for _, tc := range []struct {
		name, field string
		edit        func(p *Problem)
	}{
		{"negative M", "M", func(p *Problem) { p.M = -1 }},
		{"negative N", "N", func(p *Problem) { p.N = -1 }},
		{"negative K", "K", func(p *Problem) { p.K = -1 }},
		{"negative LDA", "LDA", func(p *Problem) { p.LDA = -1 }},
		{"negative LDB", "LDB", func(p *Problem) { p.LDB = -1 }},
		{"negative LDC", "LDC", func(p *Problem) { p.LDC = -1 }},
		{"huge M", "M", func(p *Problem) { p.M = maxDim + 1 }},
		{"huge K", "K", func(p *Problem) { p.K = maxDim + 1 }},
		{"huge LDC", "LDC", func(p *Problem) { p.LDC = maxDim + 1 }},
		{"invalid input dtype", "Types.In", func(p *Problem) { p.Types.In = kernels.DTypeInvalid }},
		{"f32 input", "Types.In", func(p *Problem) { p.Types.In = kernels.F32 }},
		{"e4m3 output", "Types.Out", func(p *Problem) { p.Types.Out = E4M3 }},
		{"f32 output", "Types.Out", func(p *Problem) { p.Types.Out = kernels.F32 }},
		{"e4m3 to e4m3", "Types.Out", func(p *Problem) { p.Types.In, p.Types.Out = E4M3, E4M3 }},
		{"NaN alpha", "Alpha", func(p *Problem) { p.Alpha = nan }},
		{"infinite beta", "Beta", func(p *Problem) { p.Beta, p.C = inf, ptrC }},
		{"e4m3 without ScaleA", "ScaleA", func(p *Problem) { p.Types.In, p.ScaleB = E4M3, 1 }},
		{"e4m3 infinite ScaleB", "ScaleB", func(p *Problem) { p.Types.In, p.ScaleA, p.ScaleB = E4M3, 1, inf }},
		{"LDA below K", "LDA", func(p *Problem) { p.LDA = p.K - 1 }},
		{"LDB below K", "LDB", func(p *Problem) { p.LDB = p.K - 1 }},
		{"LDC below N", "LDC", func(p *Problem) { p.LDC = p.N - 1 }},
		{"nil A", "A", func(p *Problem) { p.A = 0 }},
		{"nil B", "B", func(p *Problem) { p.B = 0 }},
		{"nil D", "D", func(p *Problem) { p.D = 0 }},
		{"nil C with beta", "C", func(p *Problem) { p.Beta = 0.5 }},
		{"odd A", "A", func(p *Problem) { p.A++ }},
		{"odd B", "B", func(p *Problem) { p.B += 3 }},
		{"odd C", "C", func(p *Problem) { p.Beta, p.C = 1, ptrC+1 }},
		{"odd D", "D", func(p *Problem) { p.D++ }},
		{"odd Bias", "Bias", func(p *Problem) { p.Bias = ptrC + 1 }},
		{"D is A", "D", func(p *Problem) { p.D = p.A }},
		{"D is B", "D", func(p *Problem) { p.D = p.B }},
		{"D inside B", "D", func(p *Problem) { p.D = p.B + 4096 }},
		{"C overlaps D partly", "D", func(p *Problem) { p.C, p.Beta = p.D+64, 1 }},
		{"Bias is D", "D", func(p *Problem) { p.Bias = p.D }},
		{"A wraps the address space", "A", func(p *Problem) { p.A = DevicePtr(^uintptr(0) - 4095) }},
		{"D of 2^63 bytes", "D", func(p *Problem) { p.M, p.LDC = maxDim, maxDim }},
		{"e4m3 alpha overflows", "Alpha", func(p *Problem) { p.Types.In, p.Alpha, p.ScaleA, p.ScaleB = E4M3, 3e38, 1e10, 1 }},

		// e4m3 scaling (the problem is 16×512×256: row scales are 16 and 512
		// floats, block scales 2·16 and 4·2).
		{"unknown scaling", "Types.Scaling", func(p *Problem) { p.Types.Scaling = ScalingBlock + 1 }},
		{"e4m3 unknown scaling", "Types.Scaling", func(p *Problem) { e4m3(p, ScalingTensor); p.Types.Scaling = 200 }},
		{"bf16 with row scaling", "Types.Scaling", func(p *Problem) { p.Types.Scaling = ScalingRow }},
		{"bf16 with a block size", "ScaleBlock", func(p *Problem) { p.ScaleBlock = kernels.ScaleBlockK }},
		{"bf16 with ScaleAPtr", "ScaleAPtr", func(p *Problem) { p.ScaleAPtr = ptrS }},
		{"f16 with ScaleBPtr", "ScaleBPtr", func(p *Problem) { p.Types.In, p.Types.Out, p.ScaleBPtr = F16, F16, ptrS }},
		{"tensor with a block size", "ScaleBlock", func(p *Problem) { e4m3(p, ScalingTensor); p.ScaleBlock = kernels.ScaleBlockK }},
		{"row with a block size", "ScaleBlock", func(p *Problem) { e4m3(p, ScalingRow); p.ScaleBlock = kernels.ScaleBlockK }},
		{"block of 64", "ScaleBlock", func(p *Problem) { e4m3(p, ScalingBlock); p.ScaleBlock = 64 }},
		{"block without a block size", "ScaleBlock", func(p *Problem) { e4m3(p, ScalingBlock); p.ScaleBlock = 0 }},
		{"tensor with ScaleAPtr alone", "ScaleBPtr", func(p *Problem) { e4m3(p, ScalingTensor); devScales(p); p.ScaleBPtr = 0 }},
		{"tensor with ScaleBPtr alone", "ScaleAPtr", func(p *Problem) { e4m3(p, ScalingTensor); devScales(p); p.ScaleAPtr = 0 }},
		{"tensor mixing ScaleA and ScaleBPtr", "ScaleAPtr", func(p *Problem) { e4m3(p, ScalingTensor); p.ScaleB, p.ScaleBPtr = 0, ptrS }},
		{"tensor with pointers and ScaleA", "ScaleA", func(p *Problem) { e4m3(p, ScalingTensor); devScales(p); p.ScaleA = 1 }},
		{"tensor with pointers and ScaleB", "ScaleB", func(p *Problem) { e4m3(p, ScalingTensor); devScales(p); p.ScaleB = 2 }},
		{"row without ScaleAPtr", "ScaleAPtr", func(p *Problem) { e4m3(p, ScalingRow); p.ScaleAPtr = 0 }},
		{"row without ScaleBPtr", "ScaleBPtr", func(p *Problem) { e4m3(p, ScalingRow); p.ScaleBPtr = 0 }},
		{"row without pointers, scalars instead", "ScaleAPtr", func(p *Problem) {
			e4m3(p, ScalingRow)
			p.ScaleAPtr, p.ScaleBPtr, p.ScaleA, p.ScaleB = 0, 0, 1, 1
		}},
		{"row with ScaleA", "ScaleA", func(p *Problem) { e4m3(p, ScalingRow); p.ScaleA = 1 }},
		{"block without ScaleAPtr", "ScaleAPtr", func(p *Problem) { e4m3(p, ScalingBlock); p.ScaleAPtr = 0 }},
		{"block with ScaleB", "ScaleB", func(p *Problem) { e4m3(p, ScalingBlock); p.ScaleB = 1 }},
		{"row on an empty problem still takes its pointers", "ScaleBPtr", func(p *Problem) { e4m3(p, ScalingRow); p.M, p.ScaleBPtr = 0, 0 }},
		{"row with K = 0 still takes its pointers", "ScaleAPtr", func(p *Problem) {
			e4m3(p, ScalingRow)
			p.K, p.LDA, p.LDB, p.ScaleAPtr = 0, 0, 0, 0
		}},
		{"misaligned ScaleAPtr", "ScaleAPtr", func(p *Problem) { e4m3(p, ScalingRow); p.ScaleAPtr += 2 }},
		{"misaligned ScaleBPtr", "ScaleBPtr", func(p *Problem) { e4m3(p, ScalingTensor); devScales(p); p.ScaleBPtr++ }},
		{"row ScaleAPtr wraps the address space", "ScaleAPtr", func(p *Problem) { e4m3(p, ScalingRow); p.ScaleAPtr = DevicePtr(^uintptr(0) - 16*4 + 5) }},
		{"block ScaleBPtr wraps the address space", "ScaleBPtr", func(p *Problem) { e4m3(p, ScalingBlock); p.ScaleBPtr = DevicePtr(^uintptr(0) - 8*4 + 5) }},
		{"tensor ScaleAPtr is D", "D", func(p *Problem) { e4m3(p, ScalingTensor); devScales(p); p.ScaleAPtr = p.D }},
		{"row ScaleAPtr's last float in D", "D", func(p *Problem) { e4m3(p, ScalingRow); p.ScaleAPtr = p.D - 15*4 }},
		{"row ScaleBPtr's last float in D", "D", func(p *Problem) { e4m3(p, ScalingRow); p.ScaleBPtr = p.D - 511*4 }},
		{"block ScaleAPtr's last float in D", "D", func(p *Problem) { e4m3(p, ScalingBlock); p.ScaleAPtr = p.D - 31*4 }},
		{"block ScaleBPtr's last float in D", "D", func(p *Problem) { e4m3(p, ScalingBlock); p.ScaleBPtr = p.D - 7*4 }},
		{"block, K of 300: ScaleAPtr's last float in D", "D", func(p *Problem) {
			e4m3(p, ScalingBlock)
			p.K, p.LDA, p.LDB, p.ScaleAPtr = 300, 300, 300, p.D-47*4 // 3 k-blocks
		}},
		{"row ScaleBPtr inside D", "D", func(p *Problem) { e4m3(p, ScalingRow); p.ScaleBPtr = p.D + 64 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := testProblem(16, 512, 256)
			tc.edit(&p)
			err := p.Validate()
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrInvalidArgument)
			var ae *ArgError
			require.True(t, errors.As(err, &ae), "%T is not an *ArgError", err)
			assert.Equal(t, tc.field, ae.Field)
			assert.NotEmpty(t, ae.Rule)
			assert.Contains(t, err.Error(), "invalid "+tc.field+" =")
		})
	}
}

func TestValidateAccepts(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(p *Problem)
	}{
		{"plain", func(p *Problem) {}},
		{"f16", func(p *Problem) { p.Types.In, p.Types.Out = F16, F16 }},
		{"e4m3 to bf16 with scales", func(p *Problem) { p.Types.In, p.ScaleA, p.ScaleB = E4M3, 0.5, 2 }},
		{"e4m3 to f16 with scales", func(p *Problem) { p.Types.In, p.Types.Out, p.ScaleA, p.ScaleB = E4M3, F16, 1, 1 }},
		{"padded leading dimensions", func(p *Problem) { p.LDA, p.LDB, p.LDC = p.K+8, p.K+1, p.N+3 }},
		{"in place with beta", func(p *Problem) { p.C, p.Beta = p.D, 1 }},
		{"bias", func(p *Problem) { p.Bias = ptrC }},
		{"zero alpha", func(p *Problem) { p.Alpha = 0 }},
		{"M = 0 needs no pointers", func(p *Problem) { p.M, p.A, p.B, p.D = 0, 0, 0, 0 }},
		{"N = 0 needs no pointers", func(p *Problem) { p.N, p.LDC, p.A, p.B, p.D = 0, 0, 0, 0, 0 }},
		{"K = 0 needs no A or B", func(p *Problem) { p.K, p.LDA, p.LDB, p.A, p.B = 0, 0, 0, 0, 0 }},
		{"K = 0 with beta and C", func(p *Problem) { p.K, p.LDA, p.LDB, p.C, p.Beta = 0, 0, 0, ptrC, 1 }},
		{"largest dims", func(p *Problem) { p.M, p.K, p.LDA, p.A = maxDim, 1, 1, 1<<44 }},
		{"C == D with beta 0 and a stale C", func(p *Problem) { p.C = p.D + 2 }},
		{"bf16 ignores ScaleA and ScaleB", func(p *Problem) { p.ScaleA, p.ScaleB = 1, 0 }},
		{"e4m3 tensor scalars", func(p *Problem) { e4m3(p, ScalingTensor) }},
		{"e4m3 tensor through pointers", func(p *Problem) { e4m3(p, ScalingTensor); devScales(p) }},
		{"e4m3 row", func(p *Problem) { e4m3(p, ScalingRow) }},
		{"e4m3 row to f16", func(p *Problem) { e4m3(p, ScalingRow); p.Types.Out = F16 }},
		{"e4m3 block128", func(p *Problem) { e4m3(p, ScalingBlock) }},
		{"e4m3 block128, K not a multiple of 128", func(p *Problem) { e4m3(p, ScalingBlock); p.K, p.LDA, p.LDB = 300, 300, 300 }},
		{"e4m3 row: a huge Alpha is not multiplied by scales", func(p *Problem) { e4m3(p, ScalingRow); p.Alpha = 3e38 }},
		{"tensor ScaleAPtr just before D", func(p *Problem) { e4m3(p, ScalingTensor); devScales(p); p.ScaleAPtr = p.D - 4 }},
		{"row ScaleAPtr just before D", func(p *Problem) { e4m3(p, ScalingRow); p.ScaleAPtr = p.D - 16*4 }},
		{"row ScaleBPtr just before D", func(p *Problem) { e4m3(p, ScalingRow); p.ScaleBPtr = p.D - 512*4 }},
		{"block ScaleAPtr just before D", func(p *Problem) { e4m3(p, ScalingBlock); p.ScaleAPtr = p.D - 32*4 }},
		{"block ScaleBPtr just before D", func(p *Problem) { e4m3(p, ScalingBlock); p.ScaleBPtr = p.D - 8*4 }},
		{"block, K of 300: ScaleAPtr just before D", func(p *Problem) {
			e4m3(p, ScalingBlock)
			p.K, p.LDA, p.LDB, p.ScaleAPtr = 300, 300, 300, p.D-48*4
		}},
		{"row scales may alias each other and A, B (all read)", func(p *Problem) { e4m3(p, ScalingRow); p.ScaleAPtr, p.ScaleBPtr = p.A, p.A }},
		{"row with K = 0 reads no scale: ScaleAPtr may be D", func(p *Problem) {
			e4m3(p, ScalingRow)
			p.K, p.LDA, p.LDB, p.A, p.B, p.ScaleAPtr = 0, 0, 0, 0, 0, p.D
		}},
		{"row on an empty problem", func(p *Problem) { e4m3(p, ScalingRow); p.N, p.LDC, p.ScaleBPtr = 0, 0, p.D }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := testProblem(16, 512, 256)
			tc.edit(&p)
			assert.NoError(t, p.Validate())
		})
	}
}

func TestProblemHelpers(t *testing.T) {
	p := testProblem(3, 5, 7)
	p.LDA, p.LDB, p.LDC = 8, 9, 10
	assert.Equal(t, int64(5*9), p.elements()) // B spans the most
	assert.False(t, p.empty())
	alpha, _, _, _ := p.kernelScales()
	assert.Equal(t, float32(1), alpha)
	p.Types.In, p.ScaleA, p.ScaleB, p.Alpha = E4M3, 0.5, 4, 3
	alpha, _, _, _ = p.kernelScales()
	assert.Equal(t, float32(6), alpha)
	p.M = 0
	assert.True(t, p.empty())
	assert.Equal(t, int64(5*9), p.elements())
}

// ScaleFloats counts the floats the kernels read through each scale pointer.
func TestScaleFloats(t *testing.T) {
	for _, tc := range []struct {
		name    string
		m, n, k int
		edit    func(p *Problem)
		a, b    int64
	}{
		{"bf16", 16, 512, 256, func(p *Problem) {}, 0, 0},
		{"tensor scalars", 16, 512, 256, func(p *Problem) { e4m3(p, ScalingTensor) }, 0, 0},
		{"tensor pointers", 16, 512, 256, func(p *Problem) { e4m3(p, ScalingTensor); devScales(p) }, 1, 1},
		{"row", 16, 512, 256, func(p *Problem) { e4m3(p, ScalingRow) }, 16, 512},
		{"row, M = 1", 1, 4096, 4096, func(p *Problem) { e4m3(p, ScalingRow) }, 1, 4096},
		{"block", 16, 512, 256, func(p *Problem) { e4m3(p, ScalingBlock) }, 2 * 16, 4 * 2},
		{"block, K and N not multiples of 128", 3, 129, 129, func(p *Problem) { e4m3(p, ScalingBlock) }, 2 * 3, 2 * 2},
		{"block, K below 128", 5, 100, 1, func(p *Problem) { e4m3(p, ScalingBlock) }, 5, 1},
		{"block, largest", maxDim, maxDim, maxDim, func(p *Problem) { e4m3(p, ScalingBlock) }, 1 << 24 << 31, 1 << 48},
		{"row, K = 0", 16, 512, 0, func(p *Problem) { e4m3(p, ScalingRow) }, 0, 0},
		{"block, M = 0", 0, 512, 256, func(p *Problem) { e4m3(p, ScalingBlock) }, 0, 0},
		{"row, N = 0", 16, 0, 256, func(p *Problem) { e4m3(p, ScalingRow) }, 0, 0},
		// Sizes Validate refuses saturate instead of overflowing to 0 or below.
		{"block, M and K of MaxInt", math.MaxInt, 512, math.MaxInt, func(p *Problem) { e4m3(p, ScalingBlock) }, math.MaxInt64, 4 * (math.MaxInt64/128 + 1)},
		{"block, K of MaxInt", 16, 512, math.MaxInt, func(p *Problem) { e4m3(p, ScalingBlock) }, 16 * (math.MaxInt64/128 + 1), 4 * (math.MaxInt64/128 + 1)},
		{"block, M of 2^60", 1 << 60, 512, 1 << 12, func(p *Problem) { e4m3(p, ScalingBlock) }, math.MaxInt64, 4 * 32},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := testProblem(tc.m, tc.n, tc.k)
			tc.edit(&p)
			a, b := p.ScaleFloats()
			assert.Equal(t, [2]int64{tc.a, tc.b}, [2]int64{a, b})
		})
	}
}

// kernelScales maps each scaling onto the kernels' Alpha, scale pointers
// and GR_SCALE_* mode.
func TestKernelScales(t *testing.T) {
	type want struct {
		alpha          float32
		scaleA, scaleB uintptr
		scaling        int32
	}
	sa, sb := uintptr(ptrS), uintptr(ptrS+ptrSB)
	for _, tc := range []struct {
		name string
		edit func(p *Problem)
		want want
	}{
		{"bf16", func(p *Problem) { p.ScaleA, p.ScaleB = 7, 7 }, want{3, 0, 0, kernels.ScaleFolded}},
		{"f16", func(p *Problem) { p.Types.In, p.Types.Out = F16, F16 }, want{3, 0, 0, kernels.ScaleFolded}},
		{"tensor scalars fold into alpha", func(p *Problem) { e4m3(p, ScalingTensor); p.ScaleA, p.ScaleB = 0.5, 4 }, want{6, 0, 0, kernels.ScaleFolded}},
		{"tensor pointers", func(p *Problem) { e4m3(p, ScalingTensor); devScales(p) }, want{3, sa, sb, kernels.ScaleTensor}},
		{"row", func(p *Problem) { e4m3(p, ScalingRow) }, want{3, sa, sb, kernels.ScaleRow}},
		{"block", func(p *Problem) { e4m3(p, ScalingBlock) }, want{3, sa, sb, kernels.ScaleBlock}},
		{"row, K = 0: nothing to scale", func(p *Problem) { e4m3(p, ScalingRow); p.K, p.LDA, p.LDB = 0, 0, 0 }, want{3, 0, 0, kernels.ScaleFolded}},
		{"tensor scalars, K = 0", func(p *Problem) { e4m3(p, ScalingTensor); p.ScaleA, p.K = 2, 0 }, want{6, 0, 0, kernels.ScaleFolded}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := testProblem(16, 512, 256)
			p.Alpha = 3
			tc.edit(&p)
			require.NoError(t, p.Validate())
			var got want
			got.alpha, got.scaleA, got.scaleB, got.scaling = p.kernelScales()
			assert.Equal(t, tc.want, got)
		})
	}
}

// The scaling rules say what the mode takes.
func TestValidateScalingSays(t *testing.T) {
	for _, tc := range []struct {
		name, rule string
		edit       func(p *Problem)
	}{
		{"tensor with one pointer", "tensor scaling takes both ScaleAPtr and ScaleBPtr, or neither and the scalars ScaleA, ScaleB",
			func(p *Problem) { e4m3(p, ScalingTensor); devScales(p); p.ScaleAPtr = 0 }},
		{"row without a pointer", "row scaling reads its scales from ScaleAPtr and ScaleBPtr",
			func(p *Problem) { e4m3(p, ScalingRow); p.ScaleBPtr = 0 }},
		{"block of 64", "a block size the mode does not allow: block128 scaling takes 128",
			func(p *Problem) { e4m3(p, ScalingBlock); p.ScaleBlock = 64 }},
		{"row with a block size", "a block size the mode does not allow: row scaling takes 0",
			func(p *Problem) { e4m3(p, ScalingRow); p.ScaleBlock = 128 }},
		{"bf16 with a pointer", "bf16 inputs take no scales", func(p *Problem) { p.ScaleBPtr = ptrS }},
		{"row scales in D", "overlaps ScaleAPtr", func(p *Problem) { e4m3(p, ScalingRow); p.ScaleAPtr = p.D }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := testProblem(16, 512, 256)
			tc.edit(&p)
			var ae *ArgError
			require.ErrorAs(t, p.Validate(), &ae)
			assert.Contains(t, ae.Rule, tc.rule)
		})
	}
}
