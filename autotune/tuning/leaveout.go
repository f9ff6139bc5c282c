package tuning

import (
	"cmp"
	"maps"
	"slices"

	"github.com/gemmroute/gemmroute/dispatch"
)

// LeftOut is a default bucket chosen again without one of its weights, and
// what that choice costs the weight left out: the table is judged on
// weights the tune never saw, and the default entry is what routes them.
type LeftOut struct {
	Key    dispatch.EntryKey // the default entry (N = K = 0)
	Span   Span
	Weight Weight
	// Choice is the bucket's choice over the other weights (the tune's
	// criterion: least worst-case slowdown); Loss its time on Weight over
	// the fastest candidate's there, at the worse of the bucket's Ms (1: the
	// fastest).
	Choice Candidate
	Loss   float64
	// InLoss is the same for the choice made with Weight in (the default
	// entry's own choice).
	InLoss float64
}

// LeaveOneOut chooses each measured default bucket once without each of
// its weights (the aligned weights of its types, at least two) and reports
// the choice's loss on the weight left out, in the order of the table's
// keys, then buckets, then weight names. A weight on which the choice was
// not timed is left out of the result.
func (r *Result) LeaveOneOut() []LeftOut {
	type group struct {
		key  dispatch.EntryKey
		span Span
	}
	times := map[group]map[Weight]map[point]map[Candidate]float64{}
	for _, s := range r.Spans {
		if !s.Weight.Aligned() {
			continue
		}
		key := s.Weight.Key(r.Device.Arch)
		key.N, key.K = 0, 0
		g := group{key, s.Span}
		if times[g] == nil {
			times[g] = map[Weight]map[point]map[Candidate]float64{}
		}
		times[g][s.Weight] = pointTimes(samples(r.Device.Arch, []*SpanResult{s}), func(sample) bool { return true })
	}
	var out []LeftOut
	for g, byWeight := range times {
		if len(byWeight) < 2 {
			continue
		}
		all := map[point]map[Candidate]float64{}
		for _, pts := range byWeight {
			maps.Copy(all, pts)
		}
		in, okIn := choose(all)
		for w, pts := range byWeight {
			others := map[point]map[Candidate]float64{}
			for o, opts := range byWeight {
				if o != w {
					maps.Copy(others, opts)
				}
			}
			without, ok := choose(others)
			if !ok {
				continue
			}
			loss, timed := lossOn(pts, without.best)
			if !timed {
				continue
			}
			lo := LeftOut{Key: g.key, Span: g.span, Weight: w, Choice: without.best, Loss: loss}
			if okIn {
				lo.InLoss, _ = lossOn(pts, in.best)
			}
			out = append(out, lo)
		}
	}
	slices.SortFunc(out, func(a, b LeftOut) int {
		return cmp.Or(compareKeys(a.Key, b.Key), cmp.Compare(a.Span.Lo, b.Span.Lo), cmp.Compare(a.Weight.Name, b.Weight.Name))
	})
	return out
}

// lossOn is c's worst time over the fastest candidate's at the points of
// pts; timed is false where c has no time at one of them.
func lossOn(pts map[point]map[Candidate]float64, c Candidate) (loss float64, timed bool) {
	for _, cands := range pts {
		t, ok := cands[c]
		if !ok {
			return 0, false
		}
		loss = max(loss, t/slices.Min(slices.Collect(maps.Values(cands))))
	}
	return loss, true
}
