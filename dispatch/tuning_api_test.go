package dispatch

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gemmroute/gemmroute/kernels"
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
	q := PlaceholderProblem(3, 64, 128, Types{In: BF16, Out: BF16})
	require.NoError(t, q.Validate())
	assert.Equal(t, 128, q.LDA)
	assert.Equal(t, 64, q.LDC)
	for _, ptr := range []DevicePtr{q.A, q.B, q.D} {
		assert.Zero(t, uint64(ptr)%256)
		assert.NotZero(t, uint64(ptr)%512, "aligned to exactly 256 bytes")
	}
	// Every Types validates, with the scale fields its scaling takes.
	for _, ty := range kernels.AllTypes() {
		p := PlaceholderProblem(300, 384, 256, ty)
		require.NoError(t, p.Validate(), ty)
		assert.Equal(t, ty, p.Types)
	}

	// e4m3 per-tensor: unit scalar scales, and it plans.
	e := PlaceholderProblem(16, 4096, 4096, Types{In: E4M3, Out: BF16})
	assert.Equal(t, [2]float32{1, 1}, [2]float32{e.ScaleA, e.ScaleB})
	out, err := NewPlanner(testCatalog(t), nil, L4, Limits{}).Plan(&e)
	require.NoError(t, err)
	assert.Equal(t, "fp8_89", out.Kernel.Name)
}
