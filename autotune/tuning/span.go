package tuning

import (
	"math"

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

// SampleMs are the Ms a bucket's choice is made on: its two edges.
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

// ProbeM is a held-out M strictly inside the bucket (its geometric middle),
// timed but not chosen on, so that the report's bucket loss is out of
// sample; 0 when the bucket has no inner M.
func (s Span) ProbeM() int {
	m := int(math.Round(math.Sqrt(float64(s.Lo) * float64(s.Hi))))
	if m <= s.Lo || m >= s.Hi {
		return 0
	}
	return m
}

// TimedMs are every M of the span that is timed: the sample Ms and the probe.
func (s Span) TimedMs() []int {
	if pm := s.ProbeM(); pm > 0 {
		return []int{s.Lo, pm, s.Hi}
	}
	return s.SampleMs()
}
