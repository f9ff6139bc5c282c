package dispatch

import (
	"fmt"

	"github.com/gemmroute/gemmroute/kernels"
)

// PlaceholderPtr returns a stand-in device address for planning before any
// buffer exists (explain, tuning, examples): slot (1, 2, …) has its own
// 2^40-byte range, and the address is aligned to exactly align bytes, a power
// of two below 2^40. Planning reads only the number; never launch with it.
func PlaceholderPtr(slot, align int) (DevicePtr, error) {
	if align <= 0 || align&(align-1) != 0 || align >= 1<<40 {
		return 0, &ArgError{Field: "align", Value: align, Rule: "must be a power of two below 2^40"}
	}
	if slot < 1 || slot >= 1<<23 {
		return 0, &ArgError{Field: "slot", Value: slot, Rule: fmt.Sprintf("must be in [1, %d]", 1<<23-1)}
	}
	return DevicePtr(uint64(slot)<<40 + uint64(align)), nil
}

// PlaceholderProblem is the packed TN problem M×N×K computing in t, alpha
// 1, with 256-byte aligned placeholder pointers for A (slot 1), B (2) and
// D (3): what a planner checks constraints on before buffers exist. E4M3
// takes per-tensor scaling with the scalars ScaleA = ScaleB = 1, or row
// and block scaling with placeholder scale vectors (slots 4 and 5).
func PlaceholderProblem(m, n, k int, t Types) Problem {
	ptr := func(slot int) DevicePtr { return DevicePtr(uint64(slot)<<40 + 256) }
	p := Problem{M: m, N: n, K: k, Types: t, LDA: k, LDB: k, LDC: n, A: ptr(1), B: ptr(2), D: ptr(3), Alpha: 1}
	switch {
	case !t.Scaled():
	case t.Scaling == ScalingTensor:
		p.ScaleA, p.ScaleB = 1, 1
	default:
		p.ScaleAPtr, p.ScaleBPtr = ptr(4), ptr(5)
		if t.Scaling == ScalingBlock {
			p.ScaleBlock = kernels.ScaleBlockK
		}
	}
	return p
}
