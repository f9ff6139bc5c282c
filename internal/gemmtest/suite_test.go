package gemmtest

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gemmroute/gemmroute/dispatch"
)

func TestHalfConversions(t *testing.T) {
	for _, dt := range []dispatch.DType{dispatch.F16, dispatch.BF16} {
		for _, f := range []float32{0, 1, -1, 0.5, 3.140625, -2.75, 1024, 6.103515625e-05} {
			require.Equal(t, f, FromBits(dt, ToBits(dt, f)), "%s %g", dt, f)
		}
		require.True(t, math.IsNaN(float64(FromBits(dt, Poison))), "poison must be NaN in %s", dt)
	}
	require.Equal(t, uint16(0x3c00), ToBits(dispatch.F16, 1))
	require.Equal(t, uint16(0x3f80), ToBits(dispatch.BF16, 1))
	require.Equal(t, uint16(0x0001), ToBits(dispatch.F16, float32(math.Pow(2, -24)))) // smallest subnormal
	require.Equal(t, float32(math.Pow(2, -24)), FromBits(dispatch.F16, 1))
	require.Equal(t, uint16(0x7c00), ToBits(dispatch.F16, 1e6)) // overflow to inf
}

// The CPU backend passes the same table the GPU kernels must pass.
//
// Under the race detector only the cases of at most 2^20 multiply-adds run
// (8 of 16): the serial CPU backend has no concurrency to race, and Fill's
// parallel reference runs the same per-row tasks on small cases as on large
// ones, so the large ones (33×769×5125 and the like) only cost minutes there.
// CI runs every case without -race (the README's test command) and this
// package again with -race.
func TestCPUBackendPassesAwkwardCases(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range Awkward() {
		if raceEnabled && c.M*c.N*c.K > 1<<20 {
			continue
		}
		for _, dt := range []dispatch.DType{dispatch.BF16, dispatch.F16} {
			d := Fill(c, dt, rng)
			require.NoError(t, d.Check(d.CPU()), "%s %s", c.Name, dt)
		}
	}
}

// The checker catches what it exists to catch.
func TestCheckRejectsWrongOutputs(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	d := Fill(Case{Name: "t", M: 3, N: 5, K: 64, LDC: 7}, dispatch.BF16, rng)
	good := d.CPU()
	require.NoError(t, d.Check(good))

	unwritten := append([]uint16(nil), good...)
	unwritten[1*7+2] = Poison
	require.ErrorContains(t, d.Check(unwritten), "D[1,2]")

	padding := append([]uint16(nil), good...)
	padding[0*7+6] = ToBits(dispatch.BF16, 1)
	require.ErrorContains(t, d.Check(padding), "padding")

	off := append([]uint16(nil), good...)
	off[2*7+4] = ToBits(dispatch.BF16, FromBits(dispatch.BF16, off[2*7+4])+0.5)
	require.ErrorContains(t, d.Check(off), "D[2,4]")
}

func TestSampledCheckStillSeesUnwritten(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	d := FillSampled(Case{Name: "s", M: 8, N: 300, K: 32}, dispatch.F16, rng, 50)
	good := d.CPU()
	require.NoError(t, d.Check(good))
	for i, ok := range d.Sampled {
		if !ok {
			good[i] = Poison
			break
		}
	}
	require.ErrorContains(t, d.Check(good), "not written")
}

// Random draws large buffers in parallel chunks of 2^20, each seeded from
// rng in order: the result depends only on rng's state, the chunks do not
// overlap (run with -race), and no value is zero.
func TestRandomParallelChunksAreDeterministic(t *testing.T) {
	const n = 2<<20 + 12345 // three chunks, the last one partial
	for _, dt := range []dispatch.DType{dispatch.BF16, dispatch.E4M3} {
		a := Random(dt, n, rand.New(rand.NewPCG(7, 8)))
		b := Random(dt, n, rand.New(rand.NewPCG(7, 8)))
		require.True(t, slices.Equal(a, b), "%s: two draws from one rng state differ", dt)
		for i, v := range a {
			if FromBits(dt, v) == 0 {
				t.Fatalf("%s: element %d is zero", dt, i)
			}
		}
	}
}

// skipUnderRace skips a test of arithmetic only under the race detector,
// where it runs 10× slower to check nothing concurrent: its Fill and Random
// calls run the same parallel code TestCPUBackendPassesAwkwardCases and
// TestRandomParallelChunksAreDeterministic race. CI runs it without -race.
func skipUnderRace(t *testing.T) {
	t.Helper()
	if raceEnabled {
		t.Skip("arithmetic only; runs without -race (see skipUnderRace)")
	}
}

// nanBits agrees with FromBits on every 16-bit pattern of bf16 and f16.
func TestNaNBits(t *testing.T) {
	for _, dt := range []dispatch.DType{dispatch.BF16, dispatch.F16} {
		isNaN := nanBits(dt)
		for h := range 1 << 16 {
			require.Equal(t, math.IsNaN(float64(FromBits(dt, uint16(h)))), isNaN(uint16(h)), "%s %#x", dt, h)
		}
	}
}

// A check over many rows (checked in parallel chunks) counts every
// mismatch, describes the first five in row order, and says the same
// whatever GOMAXPROCS is.
func TestCheckCountsEveryMismatchDescribesFive(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	d := FillSampled(Case{Name: "many", M: 300, N: 1000, K: 16}, dispatch.BF16, rng, 2000)
	out := d.CPU()
	require.NoError(t, d.Check(out))
	bad := slices.Clone(out)
	for m := 3; m < 300; m += 7 { // 43 rows with an unwritten element, chunks apart
		bad[m*d.P.LDC+999] = Poison
	}
	err := d.Check(bad)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "43 mismatches")
	assert.Contains(t, err.Error(), "D[3,999] not written (NaN)", "the first, in row order")
	assert.Contains(t, err.Error(), "… 38 more")
	assert.NotContains(t, err.Error(), "D[38,999]", "the sixth is counted, not described")
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	assert.Equal(t, err.Error(), d.Check(bad).Error())
	assert.Equal(t, d.Worst(out), d.Worst(out))
}
