package gemmtest

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gemmroute/gemmroute/dispatch"
)

// Every code decodes to the value its fields say, and the 254 finite values
// are distinct.
func TestE4M3Decode(t *testing.T) {
	require.Equal(t, float32(1), E4M3ToFloat(0x38))
	require.Equal(t, float32(-2), E4M3ToFloat(0xc0))
	require.Equal(t, float32(448), E4M3ToFloat(0x7e))
	require.Equal(t, float32(-448), E4M3ToFloat(0xfe))
	require.Equal(t, float32(0x1p-9), E4M3ToFloat(0x01)) // smallest subnormal
	require.Equal(t, float32(7*0x1p-9), E4M3ToFloat(0x07))
	require.Equal(t, float32(0x1p-6), E4M3ToFloat(0x08)) // smallest normal
	require.Equal(t, float32(1.125), E4M3ToFloat(0x39))
	require.True(t, math.IsNaN(float64(E4M3ToFloat(0x7f))))
	require.True(t, math.IsNaN(float64(E4M3ToFloat(0xff))))
	seen := map[float32]int{}
	for c := range 256 {
		v := E4M3ToFloat(uint8(c))
		if c&0x7f == 0x7f {
			continue
		}
		require.False(t, math.IsNaN(float64(v)), "code %#x", c)
		require.LessOrEqual(t, math.Abs(float64(v)), 448.0)
		require.Equal(t, c&0x80 != 0, math.Signbit(float64(v)), "code %#x sign", c)
		if prev, ok := seen[v]; ok && v != 0 {
			t.Fatalf("codes %#x and %#x both decode to %g", prev, c, v)
		}
		seen[v] = c
		// The value from the fields, by another route.
		e, m := c>>3&0xf, float64(c&7)
		want := m * math.Pow(2, -9)
		if e > 0 {
			want = (8 + m) * math.Pow(2, float64(e)-10)
		}
		require.Equal(t, want, math.Abs(float64(v)), "code %#x", c)
	}
}

// nearestE4M3 is the encoder's specification by brute force: the finite
// code nearest to f, a tie to the code with the even mantissa, magnitudes
// beyond 448 saturated.
func nearestE4M3(f float64) uint8 {
	best, bestErr := uint8(0), math.Inf(1)
	for c := range 256 {
		if c&0x7f == 0x7f || (c&0x80 != 0) != math.Signbit(f) {
			continue
		}
		d := math.Abs(float64(E4M3ToFloat(uint8(c))) - math.Max(-448, math.Min(448, f)))
		if d < bestErr || (d == bestErr && c&1 == 0) {
			best, bestErr = uint8(c), d
		}
	}
	return best
}

// The encoder round-trips every code, rounds every midpoint between
// neighbours to the even one and every point off a midpoint to the nearest,
// and saturates; checked against the decoder over all codes.
func TestE4M3EncodeExhaustive(t *testing.T) {
	skipUnderRace(t)
	for c := range 256 {
		if c&0x7f == 0x7f {
			continue
		}
		require.Equal(t, uint8(c), E4M3FromFloat(E4M3ToFloat(uint8(c))), "round trip of %#x", c)
	}
	for _, sign := range []float64{1, -1} {
		for c := 0; c < 0x7e; c++ { // neighbours c, c+1 of one sign
			lo, hi := float64(E4M3ToFloat(uint8(c))), float64(E4M3ToFloat(uint8(c+1)))
			mid := (lo + hi) / 2
			for _, f := range []float64{mid, math.Nextafter(mid, 0), math.Nextafter(mid, 1000), lo + (hi-lo)/4, hi - (hi-lo)/8} {
				x := float32(sign * f)
				if float64(x) != sign*f {
					continue // not a float32: the float64 rounding would decide
				}
				require.Equal(t, nearestE4M3(sign*f), E4M3FromFloat(x), "%g (between %#x and %#x)", sign*f, c, c+1)
			}
		}
		for _, f := range []float64{448, 449, 463.99, 464, 465, 480, 1e6, math.Inf(1)} {
			require.Equal(t, uint8(0x7e)|map[bool]uint8{true: 0x80}[sign < 0], E4M3FromFloat(float32(sign*f)), "saturating %g", sign*f)
		}
	}
	require.Equal(t, uint8(0x80), E4M3FromFloat(float32(math.Copysign(0, -1))))
	require.Equal(t, uint8(0), E4M3FromFloat(0x1p-11)) // below half the smallest subnormal
	require.Equal(t, uint8(1), E4M3FromFloat(0x1p-10*1.0001))
	require.Equal(t, uint8(E4M3NaN), E4M3FromFloat(float32(math.NaN())))
	rng := rand.New(rand.NewPCG(7, 8))
	for range 100000 {
		f := float32(math.Copysign(math.Exp2(-12+22*rng.Float64()), rng.Float64()-0.5))
		require.Equal(t, nearestE4M3(float64(f)), E4M3FromFloat(f), "%g", f)
	}
	require.Equal(t, uint16(0x38), ToBits(dispatch.E4M3, 1))
	require.Equal(t, float32(-448), FromBits(dispatch.E4M3, 0xfe))
}

// Random e4m3 codes are finite, nonzero, spread over the binades, and both
// signs.
func TestRandomE4M3(t *testing.T) {
	skipUnderRace(t)
	codes := Random(dispatch.E4M3, 1<<16, rand.New(rand.NewPCG(9, 10)))
	binades := map[int]bool{}
	var neg int
	for _, c := range codes {
		require.Less(t, c, uint16(256))
		v := float64(FromBits(dispatch.E4M3, c))
		require.False(t, math.IsNaN(v) || v == 0, "code %#x", c)
		require.LessOrEqual(t, math.Abs(v), 7.5)
		binades[int(math.Floor(math.Log2(math.Abs(v))))] = true
		if v < 0 {
			neg++
		}
	}
	require.Len(t, binades, 12, "2^-9 … 2^2")
	require.InDelta(t, 1<<15, neg, 1<<12)
}

// The scales come in the layout each mode's pointers have, positive, in
// [0.01, 2], some powers of two and some not.
func TestE4M3ScaleLayouts(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	c := Case{Name: "s", M: 3, N: 300, K: 260}
	var pow2, other int
	for _, ty := range AllTypes() {
		if !ty.Scaled() {
			continue
		}
		d := FillTypes(c, ty, rng, 0)
		require.Equal(t, dispatch.E4M3, d.P.Types.In)
		require.Equal(t, ty.Out, d.P.Types.Out)
		require.Equal(t, ty.Scaling, d.P.Types.Scaling)
		na, nb := ty.Scaling.Floats(int64(c.M), int64(c.N), int64(c.K)) // the layouts kernels' TestScalingModes checks
		if ty.Scaling == dispatch.ScalingTensor && !ty.ScalePtrs {
			require.Nil(t, d.ScaleA)
			require.Nil(t, d.ScaleB)
			require.NotZero(t, d.P.ScaleA)
			require.NotZero(t, d.P.ScaleB)
			continue
		}
		require.Zero(t, d.P.ScaleA, "pointer modes take no scalars")
		require.Zero(t, d.P.ScaleB)
		require.Len(t, d.ScaleA, int(na), "%s", ty)
		require.Len(t, d.ScaleB, int(nb), "%s", ty)
		require.Equal(t, ty.Scaling == dispatch.ScalingBlock, d.P.ScaleBlock == 128)
		for _, s := range append(append([]float32(nil), d.ScaleA...), d.ScaleB...) {
			require.True(t, s >= 0.01 && s <= 2, "scale %g", s)
			if _, e := math.Frexp(float64(s)); math.Ldexp(1, e-1) == float64(s) {
				pow2++
			} else {
				other++
			}
		}
	}
	require.Positive(t, pow2)
	require.Positive(t, other)
}

// The reference dequantises each block with its own scales, as the layout
// says: one hand-computed element per mode.
func TestE4M3Reference(t *testing.T) {
	c := Case{Name: "r", M: 2, N: 130, K: 130, Beta: 0.5, Bias: true, Alpha: 0.75}
	d := FillTypes(c, Types{Types: dispatch.Types{In: dispatch.E4M3, Out: dispatch.BF16, Scaling: dispatch.ScalingBlock}}, rand.New(rand.NewPCG(1, 1)), 0)
	for i := range d.A {
		d.A[i] = 0x38 // 1
	}
	for i := range d.B {
		d.B[i] = 0x40 // 2
	}
	// Element (1, 129): A row 1, B row 129 (N block 1), k-blocks 0 (128 k) and 1 (2 k).
	for i := range d.ScaleA {
		d.ScaleA[i] = 1
	}
	d.ScaleA[0*2+1], d.ScaleA[1*2+1] = 0.5, 0.25 // (kb, m) at kb·M + m
	d.ScaleB[1*2+0], d.ScaleB[1*2+1] = 2, 4      // (n/128, kb) at (n/128)·KB + kb
	ref, mag := d.reference(1, 129)
	cterm := 0.5 * float64(FromBits(dispatch.BF16, d.C[1*130+129]))
	bias := float64(FromBits(dispatch.BF16, d.Bias[129]))
	want := 0.75*(128*2*0.5*2+2*2*0.25*4) + cterm + bias
	require.InDelta(t, want, ref, 1e-12)
	require.InDelta(t, 0.75*260+math.Abs(cterm)+math.Abs(bias), mag, 1e-12)

	d.P.Types.Scaling, d.ScaleA, d.ScaleB = dispatch.ScalingRow, []float32{1, 0.5}, make([]float32, 130)
	d.ScaleB[129] = 3
	ref, _ = d.reference(1, 129)
	require.InDelta(t, 0.75*(130*2*0.5*3)+cterm+bias, ref, 1e-12)

	d.P.Types.Scaling, d.ScaleA, d.ScaleB, d.P.ScaleA, d.P.ScaleB = dispatch.ScalingTensor, nil, nil, 0.25, 1.5
	ref, _ = d.reference(1, 129)
	require.InDelta(t, 0.75*(130*2*0.25*1.5)+cterm+bias, ref, 1e-12)
}

// cpuCases are the awkward cases (Awkward, AwkwardE4M3) cheap enough for
// the CPU backend in every e4m3 combination, and a 128-block case with a
// partial N block.
func cpuCases() []Case {
	var out []Case
	for _, c := range append(Awkward(), AwkwardE4M3()...) {
		if c.M*c.N*c.K <= 1e6 {
			out = append(out, c)
		}
	}
	return append(out, Case{Name: "k128-small", M: 5, N: 300, K: 640, Bias: true, Beta: 0.5})
}

// The CPU backend passes Check in every combination (AllTypes): the
// reference, the scales' layout and the tolerance agree with a float32
// kernel.
func TestCPUBackendPassesEveryTypes(t *testing.T) {
	skipUnderRace(t)
	rng := rand.New(rand.NewPCG(13, 14))
	for _, ty := range AllTypes() {
		for _, c := range cpuCases() {
			d := FillTypes(c, ty, rng, 0)
			require.NoError(t, d.Check(d.CPU()), "%s %s", c.Name, ty)
		}
	}
}

// truncate12 keeps 12 fraction bits of x, toward zero (a 13-bit accumulator:
// what the H200 measured, see eps8).
func truncate12(x float32) float32 { return math.Float32frombits(math.Float32bits(x) &^ (1<<11 - 1)) }

// The tolerance holds for a model of Hopper's fp8 MMA: the block's
// accumulator truncated to 12 fraction bits every 32 products, promoted to
// float32 every 128 — the model the tolerance is derived from — on long K
// too; and it is not so wide that a 6-bit accumulator passes.
func TestE4M3ToleranceCoversHopperAccumulator(t *testing.T) {
	skipUnderRace(t)
	rng := rand.New(rand.NewPCG(15, 16))
	for _, ty := range []Types{{Types: dispatch.Types{In: dispatch.E4M3, Out: dispatch.F16, Scaling: dispatch.ScalingRow}}, {Types: dispatch.Types{In: dispatch.E4M3, Out: dispatch.BF16, Scaling: dispatch.ScalingBlock}}} {
		for _, c := range []Case{{Name: "k5125", M: 4, N: 64, K: 5125}, {Name: "k16384", M: 2, N: 32, K: 16384, Bias: true}} {
			d := FillTypes(c, ty, rng, 0)
			hopper := d.cpu(128, 32, truncate12)
			require.NoError(t, d.Check(hopper), "%s %s", c.Name, ty)
			require.Less(t, d.Worst(hopper), 1.0)
			coarse := func(x float32) float32 { return math.Float32frombits(math.Float32bits(x) &^ (1<<18 - 1)) }
			require.Error(t, d.Check(d.cpu(128, 32, coarse)), "%s %s: a 6-bit accumulator must fail", c.Name, ty)
		}
	}
}

// The tolerance is that of an accumulator promoted to float32 every 128 k
// (torch._scaled_mm's default, use_fast_accum=False): the same 14-bit
// accumulator kept over all of a long K fails it (see eps8).
func TestE4M3ToleranceRejectsUnpromotedAccumulator(t *testing.T) {
	skipUnderRace(t)
	rng := rand.New(rand.NewPCG(19, 20))
	for _, ty := range []Types{{Types: dispatch.Types{In: dispatch.E4M3, Out: dispatch.BF16, Scaling: dispatch.ScalingTensor}}, {Types: dispatch.Types{In: dispatch.E4M3, Out: dispatch.F16, Scaling: dispatch.ScalingRow}}} {
		d := FillTypes(Case{Name: "k16384", M: 4, N: 256, K: 16384}, ty, rng, 0)
		require.NoError(t, d.Check(d.cpu(128, 32, truncate12)), "%s promoted", ty)
		unpromoted := d.cpu(16384, 32, truncate12)
		require.Error(t, d.Check(unpromoted), "%s unpromoted", ty)
		require.Greater(t, d.Worst(unpromoted), 1.0)
	}
}

// Check catches, in e4m3 problems: NaN, an unwritten (poisoned) element,
// a result just beyond the bound, and a block's scale taken from the wrong
// block.
func TestE4M3CheckRejectsWrongOutputs(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	ty := Types{Types: dispatch.Types{In: dispatch.E4M3, Out: dispatch.F16, Scaling: dispatch.ScalingBlock}}
	d := FillTypes(Case{Name: "w", M: 3, N: 200, K: 384, LDC: 203}, ty, rng, 0)
	good := d.CPU()
	require.NoError(t, d.Check(good))

	require.Less(t, d.Worst(good), 1.0)
	nan := append([]uint16(nil), good...)
	nan[1*203+5] = ToBits(dispatch.F16, float32(math.NaN()))
	require.ErrorContains(t, d.Check(nan), "D[1,5]")
	require.True(t, math.IsInf(d.Worst(nan), 1), "NaN is infinitely far")

	unwritten := append([]uint16(nil), good...)
	unwritten[2*203+199] = Poison
	require.ErrorContains(t, d.Check(unwritten), "D[2,199]")

	// Beyond the bound: ref + 1.5·tol rounded to f16 (still beyond: the
	// tolerance is wider than f16's rounding).
	off := append([]uint16(nil), good...)
	i := 0*200 + 7
	tol := ty.Tolerance(384, d.Ref[i], d.Mag[i])
	off[0*203+7] = ToBits(dispatch.F16, float32(d.Ref[i]+1.5*tol))
	require.ErrorContains(t, d.Check(off), "D[0,7]")
	// Within it: ref + tol/2.
	in := append([]uint16(nil), good...)
	in[0*203+7] = ToBits(dispatch.F16, float32(d.Ref[i]+tol/4))
	require.NoError(t, d.Check(in))

	swapped := *d
	swapped.ScaleA = append([]float32(nil), d.ScaleA...)
	swapped.ScaleA[0*3+1], swapped.ScaleA[1*3+1] = d.ScaleA[1*3+1], d.ScaleA[0*3+1] // row 1's blocks 0 and 1
	if d.ScaleA[1] != d.ScaleA[4] {
		require.ErrorContains(t, d.Check(swapped.CPU()), "D[1,")
	}
}
