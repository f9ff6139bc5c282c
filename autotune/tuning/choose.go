package tuning

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/gemmroute/gemmroute/dispatch"
	"github.com/gemmroute/gemmroute/kernels"
)

// point is one measured problem: M and the weight shape.
type point struct{ m, n, k int }

// sample is one correct candidate's graph-replay time at one M.
type sample struct {
	arch    dispatch.Arch
	types   dispatch.Types
	n, k, m int
	cand    Candidate
	us      float64
}

// samples turns the final timings into the entry builder's samples.
func samples(arch dispatch.Arch, results []*SpanResult) []sample {
	var out []sample
	for _, r := range results {
		for m, ts := range r.Times {
			for c, t := range ts {
				out = append(out, sample{arch: arch, types: r.Weight.Types, n: r.Weight.N, k: r.Weight.K, m: m, cand: c, us: t.Median})
			}
		}
	}
	return out
}

// choice is the outcome for one bucket.
type choice struct {
	best, runnerUp Candidate
	worst, margin  float64           // best's worst-case slowdown over the bucket's points (1 = best everywhere); runner-up's excess, %
	times          map[point]float64 // best's time at each point
	loss           map[point]float64 // best's time over the fastest candidate's at each point (the bucket loss)
}

// scored is a candidate's worst-case slowdown against the fastest candidate
// at each point, and its total time over the points.
type scored struct {
	cd           Candidate
	worst, total float64
}

// rank scores the candidates measured at every point of times, best first
// (least worst-case slowdown, then lower total time, then name), and returns
// the fastest time at each point.
func rank(times map[point]map[Candidate]float64) ([]scored, map[point]float64) {
	fastest := map[point]float64{}
	var common []Candidate
	first := true
	for m, cands := range times {
		fastest[m] = math.Inf(1)
		var here []Candidate
		for cd, t := range cands {
			fastest[m] = min(fastest[m], t)
			here = append(here, cd)
		}
		if first {
			common, first = here, false
		} else {
			common = slices.DeleteFunc(common, func(cd Candidate) bool { return !slices.Contains(here, cd) })
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
func choose(times map[point]map[Candidate]float64) (c choice, ok bool) {
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

// Choice is one bucket of a tuned entry and its worst bucket loss over the
// points it was chosen on (the chosen kernel's time over the fastest's; 0:
// nothing measured there, the bucket took a neighbour's or the base
// table's choice).
type Choice struct {
	Key    dispatch.EntryKey
	Bucket dispatch.Bucket
	Loss   float64
}

// buildEntries turns samples into one exact entry per measured shape and one
// default entry per (arch, types), chosen over all its aligned shapes
// together, with the table's geometric buckets up to maxM. Buckets without
// measurements take a measured neighbour's or the base table's choice (and
// its digest); a measured one records the digest of cat's kernel.
func buildEntries(samples []sample, base *dispatch.Table, maxM int, cat *kernels.Catalog) ([]dispatch.Entry, []Choice, error) {
	byKey := map[dispatch.EntryKey][]sample{}
	for _, s := range samples {
		key := Weight{Types: s.types, N: s.n, K: s.k}.Key(s.arch)
		byKey[key] = append(byKey[key], s)
		// Defaults learn from shapes every 16-byte kernel can run (N, K
		// multiples of 8); others would drag them to the unaligned kernels.
		if (Weight{N: s.n, K: s.k}).Aligned() {
			key.N, key.K = 0, 0
			byKey[key] = append(byKey[key], s)
		}
	}
	keys := slices.SortedFunc(maps.Keys(byKey), compareKeys)
	var out []dispatch.Entry
	var choices []Choice
	for _, key := range keys {
		e := dispatch.Entry{Arch: key.Arch, Types: key.Types, Layout: key.Layout, N: key.N, K: key.K}
		_, fallback := base.Find(key.Arch, key.Types, key.N, key.K)
		var bs []Choice
		for _, b := range dispatch.GeometricBuckets(maxM) {
			bs = append(bs, bucketFor(key, byKey[key], b, fallback, cat))
		}
		inheritUnmeasured(bs)
		for _, c := range bs {
			if c.Bucket.Kernel == "" && c.Bucket.Vendor == nil {
				return nil, nil, fmt.Errorf("%s: bucket %s has no measurement, no measured neighbour and no base default", key, c.Bucket.String())
			}
			e.Buckets = append(e.Buckets, c.Bucket)
		}
		out, choices = append(out, e), append(choices, bs...)
	}
	return out, choices, nil
}

// compareKeys orders entry keys as the written table lists them: arch,
// types, then N and K (a default entry, N = K = 0, first).
func compareKeys(a, b dispatch.EntryKey) int {
	return cmp.Or(cmp.Compare(a.Arch, b.Arch), cmp.Compare(a.Types.In, b.Types.In), cmp.Compare(a.Types.Out, b.Types.Out),
		cmp.Compare(a.Types.Scaling, b.Types.Scaling), cmp.Compare(a.N, b.N), cmp.Compare(a.K, b.K))
}

// inheritUnmeasured gives each unmeasured bucket the choice of the nearest
// measured bucket below it (else above): the same shape's constraints hold
// there, which the base table's default may not satisfy.
func inheritUnmeasured(bs []Choice) {
	for i := range bs {
		if bs[i].Loss != 0 {
			continue
		}
		for _, j := range nearest(i, len(bs)) {
			if bs[j].Loss != 0 {
				routeLike(&bs[i].Bucket, &bs[j].Bucket)
				break
			}
		}
	}
}

// routeLike makes dst route as src does: src's kernel, digest and split-K,
// or a copy of its cuBLASLt algorithm.
func routeLike(dst, src *dispatch.Bucket) {
	dst.Kernel, dst.Digest, dst.SplitK, dst.Vendor = src.Kernel, src.Digest, src.SplitK, nil
	if src.Vendor != nil {
		v := *src.Vendor
		dst.Vendor = &v
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

// bucketFor chooses bucket b over the samples in it: a candidate must be
// measured at every (M, shape) there. TimesUS keeps, per M, the chosen
// candidate's slowest time over the shapes. A bucket with no measurement
// takes the fallback entry's choice for now (inheritUnmeasured may replace
// it) or none. A chosen kernel (one of cat's) gives its digest; a chosen
// cuBLASLt algorithm is recorded as the bucket's Vendor, beside the best of
// our kernels there (its kernel, digest, split-K and KernelTimesUS).
func bucketFor(key dispatch.EntryKey, samples []sample, b dispatch.Bucket, fallback *dispatch.Entry, cat *kernels.Catalog) Choice {
	out := Choice{Key: key, Bucket: b}
	times := pointTimes(samples, func(s sample) bool { return b.Contains(s.m) })
	if c, ok := choose(times); ok {
		out.Bucket.Kernel, out.Bucket.SplitK, out.Bucket.MarginPct = c.best.Kernel, c.best.SplitK, round2(c.margin)
		if c.best.IsVendor() {
			v := c.best.Vendor
			out.Bucket.Vendor = &v
			// cuBLASLt won: the bucket keeps our kernels' own choice too, for
			// wherever the vendor route cannot run (no library, NoVendor)
			if ours, ok := choose(oursOnly(times)); ok {
				out.Bucket.Kernel, out.Bucket.SplitK = ours.best.Kernel, ours.best.SplitK
				out.Bucket.KernelTimesUS = timesByM(ours.times)
			}
		}
		if k := cat.Kernel(out.Bucket.Kernel); k != nil {
			out.Bucket.Digest = k.Digest
		}
		if c.runnerUp != (Candidate{}) {
			out.Bucket.RunnerUp = c.runnerUp.String()
		}
		out.Bucket.TimesUS = timesByM(c.times)
		for _, l := range c.loss {
			out.Loss = max(out.Loss, l)
		}
		return out
	}
	if fallback != nil {
		if fb := fallback.Bucket(b.MinM); fb != nil {
			routeLike(&out.Bucket, fb)
		}
	}
	return out
}

// pointTimes gathers the samples keep accepts into each point's candidate
// times, the form choose takes.
func pointTimes(samples []sample, keep func(sample) bool) map[point]map[Candidate]float64 {
	times := map[point]map[Candidate]float64{}
	for _, s := range samples {
		if !keep(s) {
			continue
		}
		pt := point{s.m, s.n, s.k}
		if times[pt] == nil {
			times[pt] = map[Candidate]float64{}
		}
		times[pt][s.cand] = s.us
	}
	return times
}

// oursOnly is times without cuBLASLt's candidates.
func oursOnly(times map[point]map[Candidate]float64) map[point]map[Candidate]float64 {
	out := map[point]map[Candidate]float64{}
	for pt, cands := range times {
		out[pt] = maps.Clone(cands)
		maps.DeleteFunc(out[pt], func(c Candidate, _ float64) bool { return c.IsVendor() })
	}
	return out
}

// timesByM is a bucket's times_us: per M, the slowest of the shapes' times.
func timesByM(times map[point]float64) map[int]float64 {
	out := map[int]float64{}
	for pt, t := range times {
		out[pt.m] = max(out[pt.m], round2(t))
	}
	return out
}

func round2(x float64) float64 { return math.Round(x*100) / 100 }
