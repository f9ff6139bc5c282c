package dispatch

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPlaceholders(t *testing.T) {
	p, err := PlaceholderPtr(2, 2)
	require.NoError(t, err)
	assert.Equal(t, DevicePtr(0x20000000002), p)
	for _, bad := range []struct{ slot, align int }{{1, 3}, {1, 0}, {1, 1 << 40}, {0, 16}} {
		_, err := PlaceholderPtr(bad.slot, bad.align)
		var ae *ArgError
		require.ErrorAs(t, err, &ae, "%+v", bad)
		assert.ErrorIs(t, err, ErrInvalidArgument)
	}
	q := PlaceholderProblem(3, 64, 128, BF16)
	require.NoError(t, q.Validate())
	assert.Equal(t, 128, q.LDA)
	assert.Equal(t, 64, q.LDC)
	for _, ptr := range []DevicePtr{q.A, q.B, q.D} {
		assert.Zero(t, uint64(ptr)%256)
		assert.NotZero(t, uint64(ptr)%512, "aligned to exactly 256 bytes")
	}
	assert.Equal(t, [2]DType{BF16, BF16}, [2]DType{q.In, q.Out})
	f := PlaceholderProblem(16, 64, 128, F16)
	assert.Equal(t, [2]DType{F16, F16}, [2]DType{f.In, f.Out})

	// e4m3 goes to bf16 with unit per-tensor scales, and plans.
	e := PlaceholderProblem(16, 4096, 4096, E4M3)
	require.NoError(t, e.Validate())
	assert.Equal(t, [2]DType{E4M3, BF16}, [2]DType{e.In, e.Out})
	assert.Equal(t, ScalingTensor, e.Scaling)
	assert.Equal(t, [2]float32{1, 1}, [2]float32{e.ScaleA, e.ScaleB})
	out, err := NewPlanner(testCatalog(t), nil, L4, Limits{}).Plan(&e)
	require.NoError(t, err)
	assert.Equal(t, "fp8_89", out.Kernel.Name)
}
