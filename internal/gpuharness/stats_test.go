package gpuharness

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestQuantiles(t *testing.T) {
	xs := []float64{5, 1, 4, 2, 3, 10, 9, 8, 7, 6}
	assert.Equal(t, 6.0, Median(xs))
	assert.Equal(t, 10.0, P90(xs))
	assert.Equal(t, []float64{5, 1, 4, 2, 3, 10, 9, 8, 7, 6}, xs, "callers' slices are not reordered")
}
