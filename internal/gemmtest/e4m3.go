package gemmtest

import (
	"math"
	"math/rand/v2"
)

// E4M3 element codes: 1 sign, 4 exponent (bias 7) and 3 mantissa bits, no
// infinities, S.1111.111 is NaN; exponent field 0 holds the subnormals
// m/8 · 2^-6.
const (
	E4M3Max    = 448  // the largest finite magnitude, S.1111.110
	E4M3NaN    = 0x7f // the NaN code encoding gives (S.1111.111, sign clear)
	e4m3MaxPos = 0x7e // code of +448
)

// e4m3Values holds every code's value.
var e4m3Values = func() (v [256]float32) {
	for c := range v {
		v[c] = decodeE4M3(uint8(c))
	}
	return v
}()

// E4M3ToFloat decodes an e4m3 code (exact: every value is a float32).
func E4M3ToFloat(code uint8) float32 { return e4m3Values[code] }

// decodeE4M3 is E4M3ToFloat from the code's fields.
func decodeE4M3(code uint8) float32 {
	e, m := int(code>>3)&0xf, float64(code&7)
	var v float64
	switch {
	case e == 0xf && m == 7:
		return float32(math.NaN())
	case e == 0:
		v = m / 8 * 0x1p-6
	default:
		v = (1 + m/8) * math.Ldexp(1, e-7)
	}
	if code&0x80 != 0 {
		v = -v
	}
	return float32(v)
}

// E4M3FromFloat encodes f as e4m3, rounding to the nearest value (ties to an
// even mantissa) and saturating magnitudes above 448 (infinities included)
// to ±448, as the kernels' cvt.rn.satfinite does; NaN gives E4M3NaN.
func E4M3FromFloat(f float32) uint8 {
	if f != f {
		return E4M3NaN
	}
	var sign uint8
	if math.Signbit(float64(f)) {
		sign = 0x80
	}
	a := math.Abs(float64(f))
	if a >= E4M3Max { // infinities too; (448, 464) rounds to 448 anyway
		return sign | e4m3MaxPos
	}
	if a < 0x1p-6 { // subnormal: multiples of 2^-9; 8·2^-9 is the code of 2^-6
		return sign | uint8(math.RoundToEven(a*0x1p9))
	}
	frac, exp := math.Frexp(a) // a = frac · 2^exp, frac in [0.5, 1)
	e := exp - 1 + 7           // biased exponent of a = (2·frac) · 2^(exp-1)
	m := math.RoundToEven((2*frac - 1) * 8)
	if m == 8 {
		m, e = 0, e+1
	}
	return sign | uint8(e)<<3 | uint8(m)
}

// randomE4M3 draws a finite, nonzero e4m3 code with a random sign and a
// magnitude from 2^-9 (the smallest subnormal) to 7.5: every code of that
// range equally likely, so that the values spread over 12 binades, the
// products are exact in float32 and sums of thousands stay far inside f16.
func randomE4M3(r *rand.Rand) uint16 {
	const maxCode = 9<<3 | 7 // 1.875 · 2^2 = 7.5
	return uint16(uint8(1+r.IntN(maxCode)) | uint8(r.IntN(2))<<7)
}

// randomScale draws a positive dequantisation scale in [0.01, 2]: half of
// them powers of two (2^-6…2^1), the others log-uniform (not powers of two,
// in general).
func randomScale(r *rand.Rand) float32 {
	if r.IntN(2) == 0 {
		return float32(math.Ldexp(1, 1-r.IntN(8)))
	}
	lo := math.Log2(0.01)
	return float32(math.Exp2(lo + (1-lo)*r.Float64()))
}
