// Package gemmtest is gemmroute's conformance suite: 16-bit and e4m3 conversions, the
// float64 CPU reference, the table of awkward cases and the checker that
// every backend (the CPU reference itself, the GPU kernels) must pass.
package gemmtest

import (
	"math"

	"github.com/gemmroute/gemmroute/dispatch"
)

// ToBits rounds f to dtype d (F16, BF16 or E4M3: round to nearest even;
// e4m3 saturates to ±448) and returns its bits (an e4m3 code in the low
// byte).
func ToBits(d dispatch.DType, f float32) uint16 {
	if d == dispatch.E4M3 {
		return uint16(E4M3FromFloat(f))
	}
	if d == dispatch.BF16 {
		b := math.Float32bits(f)
		if f != f {
			return 0x7fc0
		}
		return uint16((b + 0x7fff + (b>>16)&1) >> 16)
	}
	return f32ToF16(f)
}

// FromBits widens dtype-d bits to float32 (an e4m3 code from the low byte).
func FromBits(d dispatch.DType, h uint16) float32 {
	if d == dispatch.E4M3 {
		return E4M3ToFloat(uint8(h))
	}
	if d == dispatch.BF16 {
		return math.Float32frombits(uint32(h) << 16)
	}
	return f16ToF32(h)
}

func f16ToF32(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := int(h>>10) & 0x1f
	man := uint32(h & 0x3ff)
	switch {
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | man<<13)
	case exp == 0:
		return math.Float32frombits(sign | math.Float32bits(float32(float64(man)*math.Pow(2, -24))))
	}
	return math.Float32frombits(sign | uint32(exp-15+127)<<23 | man<<13)
}

func f32ToF16(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	if f != f {
		return sign | 0x7e00
	}
	a := math.Abs(float64(f))
	switch {
	case a >= 65520:
		return sign | 0x7c00
	case a < math.Pow(2, -25):
		return sign
	case a < math.Pow(2, -14): // subnormal: multiples of 2^-24
		return sign | uint16(math.RoundToEven(a*(1<<24)))
	}
	e := math.Floor(math.Log2(a))
	m := math.RoundToEven((a/math.Pow(2, e) - 1) * 1024)
	if m == 1024 {
		m, e = 0, e+1
	}
	if e > 15 {
		return sign | 0x7c00
	}
	return sign | uint16(e+15)<<10 | uint16(m)
}
