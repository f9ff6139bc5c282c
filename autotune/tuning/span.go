package tuning

import (
	"math"
	"slices"

	"github.com/gemmroute/gemmroute/dispatch"
)

// Span is one geometric M bucket [Lo, Hi] the tuner measures.
type Span struct{ Lo, Hi int }

// Spans covers M = 1…maxM (a power of two) with the table's bucket scheme
// (dispatch.GeometricBuckets) without its open last bucket, which takes the
// last span's choice.
func Spans(maxM int) []Span {
	bs := dispatch.GeometricBuckets(maxM)
	out := make([]Span, len(bs)-1)
	for i, b := range bs[:len(bs)-1] {
		out[i] = Span{b.MinM, b.MaxM}
	}
	return out
}

// middle is the bucket's geometric middle, 0 when it has no inner M.
func (s Span) middle() int {
	m := int(math.Round(math.Sqrt(float64(s.Lo) * float64(s.Hi))))
	if m <= s.Lo || m >= s.Hi {
		return 0
	}
	return m
}

// SampleMs are the Ms a bucket's choice is made on: its two edges. (Above
// M = 128 the scheme's buckets are half octaves; on an H100, choices made
// so at M = 129…1024 lost 4.8 % on average at the middles, 24 % at worst:
// docs/perf/2026-12-07-h200-e, call A.)
func (s Span) SampleMs() []int {
	if s.Lo == s.Hi {
		return []int{s.Lo}
	}
	return []int{s.Lo, s.Hi}
}

// GateMs are the Ms every candidate must compute correctly before it is
// timed: the edges and Hi−1, odd and so a multiple of no tile but 1.
func (s Span) GateMs() []int {
	if s.Hi-1 > s.Lo {
		return append(s.SampleMs(), s.Hi-1)
	}
	return s.SampleMs()
}

// ProbeM is a held-out M strictly inside the bucket, timed but not chosen
// on, so that the report's bucket loss is out of sample: the geometric
// middle (M = 431 in [363, 512]); 0 when the bucket has no inner M.
func (s Span) ProbeM() int { return s.middle() }

// TimedMs are every M of the span that is timed, ascending: the sample Ms
// and the probe.
func (s Span) TimedMs() []int {
	ms := s.SampleMs()
	if pm := s.ProbeM(); pm > 0 {
		ms = append(ms, pm)
		slices.Sort(ms)
	}
	return ms
}
