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
)

// testProblem is a valid bf16 problem with aligned pointers and packed
// leading dimensions.
func testProblem(m, n, k int) Problem {
	return Problem{M: m, N: n, K: k, In: BF16, Out: BF16, LDA: k, LDB: k, LDC: n,
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
		{"invalid input dtype", "In", func(p *Problem) { p.In = kernels.DTypeInvalid }},
		{"f32 input", "In", func(p *Problem) { p.In = kernels.F32 }},
		{"e4m3 output", "Out", func(p *Problem) { p.Out = E4M3 }},
		{"f32 output", "Out", func(p *Problem) { p.Out = kernels.F32 }},
		{"f16 to bf16", "Out", func(p *Problem) { p.In, p.Out = F16, BF16 }},
		{"NaN alpha", "Alpha", func(p *Problem) { p.Alpha = nan }},
		{"infinite beta", "Beta", func(p *Problem) { p.Beta, p.C = inf, ptrC }},
		{"e4m3 without ScaleA", "ScaleA", func(p *Problem) { p.In, p.ScaleB = E4M3, 1 }},
		{"e4m3 infinite ScaleB", "ScaleB", func(p *Problem) { p.In, p.ScaleA, p.ScaleB = E4M3, 1, inf }},
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
		{"e4m3 alpha overflows", "Alpha", func(p *Problem) { p.In, p.Alpha, p.ScaleA, p.ScaleB = E4M3, 3e38, 1e10, 1 }},
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
		{"f16", func(p *Problem) { p.In, p.Out = F16, F16 }},
		{"e4m3 to bf16 with scales", func(p *Problem) { p.In, p.ScaleA, p.ScaleB = E4M3, 0.5, 2 }},
		{"e4m3 to f16 with scales", func(p *Problem) { p.In, p.Out, p.ScaleA, p.ScaleB = E4M3, F16, 1, 1 }},
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
	assert.Equal(t, float32(1), p.effectiveAlpha())
	p.In, p.ScaleA, p.ScaleB, p.Alpha = E4M3, 0.5, 4, 3
	assert.Equal(t, float32(6), p.effectiveAlpha())
	p.M = 0
	assert.True(t, p.empty())
	assert.Equal(t, int64(5*9), p.elements())
}
