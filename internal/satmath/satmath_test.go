package satmath

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestMul(t *testing.T) {
	assert.Equal(t, int64(12), Mul(3, 4))
	assert.Equal(t, int64(0), Mul(0, 4))
	assert.Equal(t, int64(0), Mul(-3, 4))
	assert.Equal(t, int64(math.MaxInt64), Mul(math.MaxInt64, 2))
	assert.Equal(t, int64(math.MaxInt64), Mul(1<<32, 1<<32))
}
