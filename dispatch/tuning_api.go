package dispatch

import "fmt"

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

// PlaceholderProblem is the packed TN problem M×N×K with dtype dt in and out
// (e4m3: out bf16, per-tensor scalars ScaleA = ScaleB = 1), alpha 1, and
// 256-byte aligned placeholder pointers for A (slot 1), B (2) and D (3):
// what a planner checks constraints on before buffers exist.
func PlaceholderProblem(m, n, k int, dt DType) Problem {
	ptr := func(slot int) DevicePtr { return DevicePtr(uint64(slot)<<40 + 256) }
	p := Problem{M: m, N: n, K: k, In: dt, Out: dt, LDA: k, LDB: k, LDC: n, A: ptr(1), B: ptr(2), D: ptr(3), Alpha: 1}
	if dt == E4M3 {
		p.Out, p.ScaleA, p.ScaleB = BF16, 1, 1
	}
	return p
}
