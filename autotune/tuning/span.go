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

// middleFrom is the first bucket edge from which a bucket's choice is also
// made on its geometric middle: above M = 256 the tiles that fill the card at
// one edge of an octave waste a wave at the other, and the middle is where a
// kernel chosen on the edges loses most (docs/perf/2026-12-07-h200-c,
// midchoice.py: on the H200's timings of 2026-12-06 at M = 513…1024, the
// worst loss of a weight's own choice over the edges and the middle fell
// from ×1.47 to ×1.28).
const middleFrom = 257

// middle is the bucket's geometric middle, 0 when it has no inner M.
func (s Span) middle() int { return inner(s.Lo, s.Hi, 0.5) }

// inner is the M at fraction f of the way from lo to hi on a log scale,
// 0 when it is not strictly inside.
func inner(lo, hi int, f float64) int {
	m := int(math.Round(math.Exp((1-f)*math.Log(float64(lo)) + f*math.Log(float64(hi)))))
	if m <= lo || m >= hi {
		return 0
	}
	return m
}

// SampleMs are the Ms a bucket's choice is made on: its two edges, and from
// middleFrom on its geometric middle too.
func (s Span) SampleMs() []int {
	if s.Lo == s.Hi {
		return []int{s.Lo}
	}
	if mid := s.middle(); s.Lo >= middleFrom && mid > 0 {
		return []int{s.Lo, mid, s.Hi}
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
// middle, or where the choice is made on the middle (middleFrom), the
// geometric middle of its upper half (M = 861 in [513, 1024]); 0 when the
// bucket has no such M.
func (s Span) ProbeM() int {
	mid := s.middle()
	if s.Lo < middleFrom || mid == 0 {
		return mid
	}
	if m := inner(s.Lo, s.Hi, 0.75); m != mid {
		return m
	}
	return 0
}

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
