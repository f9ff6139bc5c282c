package main

import "math"

// span is one geometric M bucket [lo, hi] the tuner measures.
type span struct{ lo, hi int }

// spans covers M = 1…maxM (a power of two) with the table's bucket edges:
// [1,1], [2,2], [3,4], [5,8], …, [maxM/2+1, maxM]. Larger M is routed by the
// last bucket's choice.
func spans(maxM int) []span {
	var out []span
	lo := 1
	for hi := 1; hi <= maxM; hi *= 2 {
		out = append(out, span{lo, hi})
		lo = hi + 1
	}
	return out
}

// edges are the buckets' upper edges.
func edges(sp []span) []int {
	out := make([]int, len(sp))
	for i, s := range sp {
		out[i] = s.hi
	}
	return out
}

// sampleMs are the Ms a bucket's choice is made on: its two edges.
func (s span) sampleMs() []int {
	if s.lo == s.hi {
		return []int{s.lo}
	}
	return []int{s.lo, s.hi}
}

// gateMs are the Ms every candidate must compute correctly before it is
// timed: the edges and hi−1, odd and so a multiple of no tile but 1.
func (s span) gateMs() []int {
	if s.hi-1 > s.lo {
		return append(s.sampleMs(), s.hi-1)
	}
	return s.sampleMs()
}

// probeM is a held-out M strictly inside the bucket (its geometric middle),
// timed but not chosen on, so the report's bucket loss is out of sample; 0
// when the bucket has no inner M.
func (s span) probeM() int {
	m := int(math.Round(math.Sqrt(float64(s.lo) * float64(s.hi))))
	if m <= s.lo || m >= s.hi {
		return 0
	}
	return m
}
