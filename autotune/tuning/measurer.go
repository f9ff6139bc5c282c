package tuning

import (
	"cmp"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/gemmroute/gemmroute/dispatch"
)

// Candidate is what the tuner times for a bucket: a kernel of ours with a
// split-K factor, or an algorithm of cuBLASLt (Vendor set, Kernel empty,
// SplitK 1).
type Candidate struct {
	Kernel string
	SplitK int
	Vendor dispatch.Vendor // the zero value for a kernel of ours
}

// IsVendor reports whether c is an algorithm of cuBLASLt.
func (c Candidate) IsVendor() bool { return c.Vendor != (dispatch.Vendor{}) }

// String is "kernel split-K N", or cuBLASLt's algorithm as Explain names
// it ("cuBLASLt 12.8.4 algorithm 1a2b3c4d").
func (c Candidate) String() string {
	if c.IsVendor() {
		return c.Vendor.String()
	}
	return fmt.Sprintf("%s split-K %d", c.Kernel, c.SplitK)
}

// parseKernelCandidate reads a kernel of ours as String writes it
// ("NAME split-K S", a bucket's runner_up); false for anything else (a
// cuBLASLt algorithm, an empty or malformed text).
func parseKernelCandidate(s string) (Candidate, bool) {
	name, split, ok := strings.Cut(s, " split-K ")
	if !ok || name == "" || strings.ContainsAny(name, " \t") {
		return Candidate{}, false
	}
	k, err := strconv.Atoi(split)
	if err != nil || k < 1 {
		return Candidate{}, false
	}
	return Candidate{Kernel: name, SplitK: k}, true
}

// Column is c in a CSV's kernel column: the kernel's name, or the
// algorithm's one-word tag ("cublaslt:12.8.4:1a2b3c4d").
func (c Candidate) Column() string {
	if c.IsVendor() {
		return c.Vendor.Tag()
	}
	return c.Kernel
}

// CandidateOf is the candidate plan runs: its kernel and split-K, or its
// cuBLASLt algorithm.
func CandidateOf(plan dispatch.Plan) Candidate {
	if plan.Vendor != nil {
		return Candidate{SplitK: 1, Vendor: *plan.Vendor}
	}
	return Candidate{Kernel: plan.KernelName(), SplitK: plan.SplitK}
}

// BucketCandidate is the candidate table bucket b routes to: its kernel
// and split-K, or its cuBLASLt algorithm.
func BucketCandidate(b *dispatch.Bucket) Candidate {
	if b.Vendor != nil {
		return Candidate{SplitK: 1, Vendor: *b.Vendor}
	}
	return Candidate{Kernel: b.Kernel, SplitK: b.SplitK}
}

// compareCandidates orders candidates by kernel name, then split-K, then
// (cuBLASLt's) version and algorithm.
func compareCandidates(a, b Candidate) int {
	return cmp.Or(strings.Compare(a.Kernel, b.Kernel), cmp.Compare(a.SplitK, b.SplitK),
		cmp.Compare(a.Vendor.Version, b.Vendor.Version), strings.Compare(a.Vendor.Algo, b.Vendor.Algo))
}

// Timing is a candidate's per-call time at one M: median and p90 over the
// replays (or calls), microseconds.
type Timing struct{ Median, P90 float64 }

// Dispersion is how far the p90 lies above the median, as a fraction.
func (t Timing) Dispersion() float64 { return t.P90/t.Median - 1 }

// ErrWrong marks a candidate that computed a wrong result: the gate drops it
// and the run goes on. Any other Measurer error stops the run.
var ErrWrong = errors.New("wrong result")

// Measurer checks and times candidates on one device. The GPU harness
// (internal/gpuharness) implements it with the engine; ModelMeasurer answers
// from the analytic model; tests inject their own.
type Measurer interface {
	// Device describes the device measured on.
	Device() dispatch.DeviceInfo
	// Check runs c at (w, m) on fresh random inputs into a poisoned output
	// and compares the result with the float64 reference; a mismatch is an
	// error wrapping ErrWrong.
	Check(w Weight, m int, c Candidate) error
	// Time returns c's per-call time at (w, m): reps graph replays over
	// rotating weights (see WeightCopies and GraphCalls) after warm-up.
	Time(w Weight, m int, c Candidate, reps int) (Timing, error)
	// Events returns c's per-call time at (w, m) by events around single
	// calls, each after an L2 flush: the report's second column.
	Events(w Weight, m int, c Candidate, calls int) (Timing, error)
}

// WeightCopies is how many copies of an N×K weight a timing rotates
// through: enough to span 3× the L2 (at least 2), so that each call reads
// its weight from memory, as in a model whose layers share no weights.
func WeightCopies(n, k int, dt dispatch.DType, l2Bytes int64) int {
	bytes := int64(n) * int64(k) * int64(dt.Size())
	return max(2, int((3*l2Bytes+bytes-1)/bytes))
}

// GraphCalls is how many GEMMs one timing graph holds: each weight copy
// once, and below 2^34 multiply-adds as many rounds as make about 32 calls.
func GraphCalls(m, n, k, copies int) int {
	if int64(m)*int64(n)*int64(k) < 1<<34 {
		return copies * max(1, 32/copies)
	}
	return copies
}
