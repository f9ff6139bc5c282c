package dispatch

import (
	"testing"

	"github.com/gemmroute/gemmroute/kernels"
)

// FuzzPlan plans arbitrary problems (any sizes, dtypes, addresses, strides,
// scalars, e4m3 scalings) on every test device: no panics, every result keeps the
// planner's contract (see checkPlan) and is what a fresh planner answers.
// Planners persist across inputs, so cached routes meet problems other than
// the ones that made them.
func FuzzPlan(f *testing.F) {
	planners := testPlanners(f, testDevices)
	f.Add(int64(1), int64(4096), int64(4096), uint8(BF16), uint8(BF16), uint64(ptrA), uint64(ptrB), uint64(ptrD), uint16(0), uint16(0), uint16(0), uint8(3), float32(0))
	f.Add(int64(64), int64(1024), int64(0), uint8(BF16), uint8(BF16), uint64(0), uint64(0), uint64(ptrD), uint16(0), uint16(0), uint16(0), uint8(2), float32(1))
	f.Add(int64(3), int64(6144), int64(4095), uint8(F16), uint8(F16), uint64(ptrA+2), uint64(ptrB+8), uint64(ptrD), uint16(1), uint16(3), uint16(5), uint8(0), float32(0))
	f.Add(int64(300), int64(4096), int64(4096), uint8(E4M3), uint8(BF16), uint64(ptrA), uint64(ptrB), uint64(ptrD), uint16(0), uint16(16), uint16(0), uint8(1), float32(0.5))
	f.Add(int64(0), int64(7), int64(7), uint8(BF16), uint8(BF16), uint64(0), uint64(0), uint64(0), uint16(0), uint16(0), uint16(0), uint8(0), float32(0))
	// One M class, planned in this order: the grid limit (2^23 rows need 65536
	// M tiles of 128, 2^22+1 need 32769) and the 1 MiB workspace cap (M = 16
	// breaks it with split-K 2 at N = 10000, M = 9 does not) once leaked
	// from the first problem of a class into the next.
	f.Add(int64(1<<23), int64(64), int64(64), uint8(BF16), uint8(BF16), uint64(ptrA), uint64(ptrB), uint64(ptrD), uint16(0), uint16(0), uint16(0), uint8(3), float32(0))
	f.Add(int64(1<<22+1), int64(64), int64(64), uint8(BF16), uint8(BF16), uint64(ptrA), uint64(ptrB), uint64(ptrD), uint16(0), uint16(0), uint16(0), uint8(3), float32(0))
	f.Add(int64(16), int64(10000), int64(64), uint8(BF16), uint8(BF16), uint64(ptrA), uint64(ptrB), uint64(ptrD), uint16(0), uint16(0), uint16(0), uint8(4), float32(0))
	f.Add(int64(9), int64(10000), int64(64), uint8(BF16), uint8(BF16), uint64(ptrA), uint64(ptrB), uint64(ptrD), uint16(0), uint16(0), uint16(0), uint8(4), float32(0))
	// e4m3 row scales, then block scales (dev's high bits), on the L4.
	f.Add(int64(16), int64(4096), int64(4096), uint8(E4M3), uint8(BF16), uint64(ptrA), uint64(ptrB), uint64(ptrD), uint16(0), uint16(0), uint16(0), uint8(0x51), float32(0))
	f.Add(int64(16), int64(4096), int64(4096), uint8(E4M3), uint8(BF16), uint64(ptrA), uint64(ptrB), uint64(ptrD), uint16(0), uint16(0), uint16(0), uint8(0xe1), float32(0))
	f.Fuzz(func(t *testing.T, m, n, k int64, in, out uint8, a, b, d uint64, padA, padB, padC uint16, dev uint8, beta float32) {
		p := Problem{M: int(m), N: int(n), K: int(k), Types: Types{In: DType(in % 6), Out: DType(out % 6)},
			LDA: int(k) + int(padA), LDB: int(k) + int(padB), LDC: int(n) + int(padC),
			A: DevicePtr(a), B: DevicePtr(b), C: DevicePtr(d), D: DevicePtr(d), Bias: DevicePtr(b),
			Alpha: 1, Beta: beta, ScaleA: 1, ScaleB: 1}
		if sc := dev >> 4; sc != 0 { // the scaling mode (3: unknown), device scales, a block size
			p.Types.Scaling = Scaling(sc & 3)
			if sc&4 != 0 {
				p.ScaleA, p.ScaleB, p.ScaleAPtr, p.ScaleBPtr = 0, 0, DevicePtr(a)+ptrS, DevicePtr(b)+ptrS
			}
			if sc&8 != 0 {
				p.ScaleBlock = kernels.ScaleBlockK
			}
		}
		pl := planners[int(dev&15)%len(planners)]
		res, err := plan(t, pl, &p)
		checkPlan(t, pl, &p, res, err)
		requireFresh(t, pl, &p, "the inputs before")
	})
}
