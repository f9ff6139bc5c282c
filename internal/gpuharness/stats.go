// Package gpuharness is the one GPU measuring harness: device buffers,
// operands uploaded with a poisoned (NaN) output and checked against the
// float64 reference of internal/gemmtest, graph-replay and per-call event
// timing, and the tuning.Measurer that autotune tunes with. The dispatch GPU
// tests and autotune both use it. Every file that reaches CUDA carries
// //go:build !nocuda; in a nocuda build only the statistics remain.
package gpuharness

import "slices"

// Median is the middle of xs (the upper one of an even count); xs is not
// reordered.
func Median(xs []float64) float64 { return quantile(xs, 0.5) }

// P90 is the 90th percentile of xs; xs is not reordered.
func P90(xs []float64) float64 { return quantile(xs, 0.9) }

func quantile(xs []float64, q float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}
