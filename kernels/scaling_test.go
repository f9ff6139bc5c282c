package kernels

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Each scaling mode's name parses back to it, and its kernel code, scale
// counts and indices are the layouts gemm_params.h documents; every mode
// has its row here.
func TestScalingModes(t *testing.T) {
	const m, n, k = 5, 300, 1000 // ⌈K/128⌉ = 8, ⌈N/128⌉ = 3
	covered := 0
	for _, c := range []struct {
		s          Scaling
		code       int32
		fa, fb     int64
		atA, atB   int // D[4, 299] at k-block 7
		zeroA, zeB int64
	}{
		{ScalingTensor, ScaleTensor, 1, 1, 0, 0, 1, 1},
		{ScalingRow, ScaleRow, m, n, 4, 299, 0, n},
		{ScalingBlock, ScaleBlock, 8 * m, 3 * 8, 7*m + 4, 2*8 + 7, 0, 0},
	} {
		covered++
		assert.Equal(t, Scaling(covered-1), c.s, "a row per mode, in order")
		t.Run(c.s.String(), func(t *testing.T) {
			back, err := ParseScaling(c.s.String())
			require.NoError(t, err)
			assert.Equal(t, c.s, back)
			assert.Equal(t, c.code, c.s.Code())
			a, b := c.s.Floats(m, n, k)
			assert.Equal(t, [2]int64{c.fa, c.fb}, [2]int64{a, b})
			ia, ib := c.s.At(4, 299, 7, m, k)
			assert.Equal(t, [2]int{c.atA, c.atB}, [2]int{ia, ib})
			assert.Less(t, int64(ia), a, "A's index inside its scales")
			assert.Less(t, int64(ib), b, "B's index inside its scales")
			a, b = c.s.Floats(0, n, 0) // no rows, no K
			assert.Equal(t, [2]int64{c.zeroA, c.zeB}, [2]int64{a, b})
		})
	}
	a, b := ScalingBlock.Floats(math.MaxInt64, 128, math.MaxInt64)
	assert.Equal(t, [2]int64{math.MaxInt64, scaleBlocks(math.MaxInt64)}, [2]int64{a, b}, "saturates, never wraps")
	assert.False(t, Scaling(covered).Valid(), "scaling %s has no row here", Scaling(covered))
	_, err := ParseScaling("col")
	require.Error(t, err)
	for s := ScalingTensor; s.Valid(); s++ {
		assert.Contains(t, err.Error(), s.String(), "an unknown name's error lists every mode")
	}
}
