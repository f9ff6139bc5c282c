package main

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"

	"github.com/gemmroute/gemmroute/dispatch"
	"github.com/gemmroute/gemmroute/kernels"
)

// point is one measured problem: M and the weight shape.
type point struct{ m, n, k int }

// choice is the outcome for one bucket.
type choice struct {
	best, runnerUp candidate
	worst, margin  float64           // best's worst-case slowdown over the bucket's points (1 = best everywhere); runner-up's excess, %
	times          map[point]float64 // best's time at each point
	loss           map[point]float64 // best's time over the fastest candidate's at each point (the bucket loss)
}

// scored is a candidate's worst-case slowdown against the fastest candidate
// at each point, and its total time over the points.
type scored struct {
	cd           candidate
	worst, total float64
}

// rank scores the candidates measured at every point of times, best first
// (least worst-case slowdown, then lower total time, then name), and returns
// the fastest time at each point.
func rank(times map[point]map[candidate]float64) ([]scored, map[point]float64) {
	fastest := map[point]float64{}
	var common []candidate
	first := true
	for m, cands := range times {
		fastest[m] = math.Inf(1)
		var here []candidate
		for cd, t := range cands {
			fastest[m] = min(fastest[m], t)
			here = append(here, cd)
		}
		if first {
			common, first = here, false
		} else {
			common = slices.DeleteFunc(common, func(cd candidate) bool { return !slices.Contains(here, cd) })
		}
	}
	var ranked []scored
	for _, cd := range common {
		s := scored{cd: cd}
		for m, cands := range times {
			s.worst = max(s.worst, cands[cd]/fastest[m])
			s.total += cands[cd]
		}
		ranked = append(ranked, s)
	}
	slices.SortFunc(ranked, func(a, b scored) int {
		return cmp.Or(cmp.Compare(a.worst, b.worst), cmp.Compare(a.total, b.total), compareCandidates(a.cd, b.cd))
	})
	return ranked, fastest
}

// choose picks, among candidates measured at every point of times, the one
// with the least worst-case slowdown against the fastest candidate at each
// point; ties go to the lower total time. ok is false when no candidate covers
// every point.
func choose(times map[point]map[candidate]float64) (c choice, ok bool) {
	ranked, fastest := rank(times)
	if len(ranked) == 0 {
		return c, false
	}
	c = choice{best: ranked[0].cd, worst: ranked[0].worst, times: map[point]float64{}, loss: map[point]float64{}}
	if len(ranked) > 1 {
		c.runnerUp, c.margin = ranked[1].cd, 100*(ranked[1].worst-ranked[0].worst)
	}
	for m, cands := range times {
		c.times[m] = cands[c.best]
		c.loss[m] = cands[c.best] / fastest[m]
	}
	return c, true
}

// entryKey names an entry: arch, dtype and exact shape (0, 0 for a default).
type entryKey struct {
	arch  dispatch.Arch
	dtype dispatch.DType
	n, k  int
}

// buildEntries turns samples into one exact entry per measured shape and one
// default entry per (arch, dtype), chosen over all its shapes together, with
// buckets ending at edges (ascending powers of two) and an open last bucket.
// Buckets without measurements take a measured neighbour's or the base
// table's choice.
func buildEntries(samples []sample, base *dispatch.Table, edges []int, report io.Writer) ([]dispatch.Entry, error) {
	byKey := map[entryKey][]sample{}
	for _, s := range samples {
		byKey[entryKey{s.arch, s.dtype, s.n, s.k}] = append(byKey[entryKey{s.arch, s.dtype, s.n, s.k}], s)
		// Defaults learn from shapes every 16-byte kernel can run (N, K
		// multiples of 8); others would drag them to the unaligned kernels.
		if s.n%8 == 0 && s.k%8 == 0 {
			def := entryKey{s.arch, s.dtype, 0, 0}
			byKey[def] = append(byKey[def], s)
		}
	}
	keys := slices.SortedFunc(maps.Keys(byKey), func(a, b entryKey) int {
		return cmp.Or(cmp.Compare(a.arch, b.arch), cmp.Compare(a.dtype, b.dtype), cmp.Compare(a.n, b.n), cmp.Compare(a.k, b.k))
	})
	var out []dispatch.Entry
	for _, key := range keys {
		e := dispatch.Entry{Arch: key.arch, In: key.dtype, Out: key.dtype, Layout: kernels.LayoutTN, N: key.n, K: key.k}
		_, fallback := base.Find(key.arch, key.dtype, key.dtype, key.n, key.k)
		lo := 1
		var bs []measuredBucket
		for i := 0; i <= len(edges); i++ {
			hi := 0
			if i < len(edges) {
				hi = edges[i]
			}
			bs = append(bs, bucketFor(byKey[key], lo, hi, fallback))
			lo = hi + 1
		}
		inheritUnmeasured(bs)
		for _, b := range bs {
			if b.Kernel == "" {
				return nil, fmt.Errorf("%s %s N=%d K=%d: bucket [%d, %d] has no measurement, no measured neighbour and no base default", key.arch, key.dtype, key.n, key.k, b.MinM, b.MaxM)
			}
			reportBucket(report, key, b)
			e.Buckets = append(e.Buckets, b.Bucket)
		}
		out = append(out, e)
	}
	return out, nil
}

// inheritUnmeasured gives each unmeasured bucket the choice of the nearest
// measured bucket below it (else above): the same shape's constraints hold
// there, which the base table's default may not satisfy.
func inheritUnmeasured(bs []measuredBucket) {
	for i := range bs {
		if bs[i].loss != 0 {
			continue
		}
		for _, j := range nearest(i, len(bs)) {
			if bs[j].loss != 0 {
				bs[i].Kernel, bs[i].SplitK = bs[j].Kernel, bs[j].SplitK
				break
			}
		}
	}
}

// nearest lists the indices below i (closest first), then those above.
func nearest(i, n int) []int {
	var out []int
	for j := i - 1; j >= 0; j-- {
		out = append(out, j)
	}
	for j := i + 1; j < n; j++ {
		out = append(out, j)
	}
	return out
}

// measuredBucket is a bucket with its worst bucket loss for the report
// (0: not measured).
type measuredBucket struct {
	dispatch.Bucket
	loss float64
}

// bucketFor chooses the bucket [lo, hi] (hi 0: open) over the samples in it:
// a candidate must be measured at every (M, shape) there. times_us keeps, per
// M, the chosen kernel's slowest time over the shapes. A bucket with no
// measurement takes the fallback entry's choice for now (inheritUnmeasured
// may replace it) or none.
func bucketFor(samples []sample, lo, hi int, fallback *dispatch.Entry) measuredBucket {
	b := measuredBucket{Bucket: dispatch.Bucket{MinM: lo, MaxM: hi}}
	times := map[point]map[candidate]float64{}
	for _, s := range samples {
		if s.m < lo || (hi != 0 && s.m > hi) {
			continue
		}
		pt := point{s.m, s.n, s.k}
		if times[pt] == nil {
			times[pt] = map[candidate]float64{}
		}
		times[pt][s.cand] = s.us
	}
	if c, ok := choose(times); ok {
		b.Kernel, b.SplitK, b.MarginPct = c.best.kernel, c.best.split, round2(c.margin)
		if c.runnerUp.kernel != "" {
			b.RunnerUp = c.runnerUp.String()
		}
		b.TimesUS = map[int]float64{}
		for pt, t := range c.times {
			b.TimesUS[pt.m] = max(b.TimesUS[pt.m], round2(t))
		}
		for _, l := range c.loss {
			b.loss = max(b.loss, l)
		}
		return b
	}
	if fallback != nil {
		fb := fallback.Bucket(lo)
		b.Kernel, b.SplitK = fb.Kernel, fb.SplitK
	}
	return b
}

func round2(x float64) float64 { return math.Round(x*100) / 100 }
