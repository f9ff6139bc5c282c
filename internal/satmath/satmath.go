// Package satmath is saturating arithmetic for sizes: byte and element
// counts that must not wrap when a problem Validate would refuse is asked
// about.
package satmath

import "math"

// Mul is a·b, 0 when either is ≤ 0, math.MaxInt64 where the product would
// overflow.
func Mul(a, b int64) int64 {
	switch {
	case a <= 0 || b <= 0:
		return 0
	case a > math.MaxInt64/b:
		return math.MaxInt64
	}
	return a * b
}
