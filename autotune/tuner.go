package main

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gemmroute/gemmroute/dispatch"
	"github.com/gemmroute/gemmroute/kernels"
)

// timing is a candidate's per-call time at one M by graph replay: median and
// p90 over the replays, microseconds.
type timing struct{ med, p90 float64 }

// dispersion is how far the p90 lies above the median, as a fraction.
func (t timing) dispersion() float64 { return t.p90/t.med - 1 }

// errWrong marks a candidate that computed a wrong result: the gate drops it
// and the run goes on. Any other measurer error stops the run.
var errWrong = errors.New("wrong result")

// measurer gates and times candidates on one GPU. The CUDA build implements
// it with the engine; tests inject results.
type measurer interface {
	device() dispatch.DeviceInfo
	// gate runs c at (w, m) on fresh random inputs into a poisoned output
	// and compares the result with the float64 reference; a mismatch is an
	// error wrapping errWrong.
	gate(w weight, m int, c candidate) error
	// time returns c's per-call time at (w, m): reps graph replays over
	// rotating weights after warm-up.
	time(w weight, m int, c candidate, reps int) (timing, error)
	// events returns c's per-call time at (w, m) by events around single
	// calls, each after an L2 flush: the second column.
	events(w weight, m int, c candidate, calls int) (timing, error)
}

// tuneConfig says what a tune run measures and how.
type tuneConfig struct {
	cat        *kernels.Catalog
	weights    []weight
	maxM       int     // last bucket edge, a power of two
	splits     []int   // split-K factors tried
	workspace  int64   // largest split-K workspace a candidate may need, bytes
	prune      float64 // skip candidates the model puts above prune× the best estimate at every sample M (0: time all)
	screenReps int     // replays of the screening timing
	reps       int     // replays of a full timing
	eventCalls int     // per-call event timings of each choice (the second column)
	keep       float64 // the screen keeps candidates within keep× the fastest at some sample M
	tie        float64 // candidates within tie (a fraction) of the best worst-case slowdown are timed again
	noise      float64 // timings whose p90 exceeds the median by more than noise are timed again, then flagged
}

// rejectNote is a candidate the gate threw out.
type rejectNote struct {
	c   candidate
	m   int
	why string
}

// logRow is one timing taken, for the CSV: phase is screen, full, retime,
// probe, fill or events.
type logRow struct {
	m     int
	c     candidate
	t     timing
	phase string
}

// spanResult is what one (weight, bucket) measured.
type spanResult struct {
	w       weight
	sp      span
	passed  []candidate                  // constraint survivors that passed the gate
	rejects []rejectNote                 // what the gate threw out
	pruned  []candidate                  // estimated too slow to time
	kept    []candidate                  // fully timed at the sample Ms (the screen's survivors)
	retimed []candidate                  // near-ties and noisy candidates, timed again with 3× the replays
	times   map[int]map[candidate]timing // final timings at the sample Ms
	events  map[int]timing               // the exact entry's choice by per-call events, by M
	probe   map[candidate]timing         // held-out timings at sp.probeM()
	log     []logRow
}

// problemAt is w at M with aligned placeholder pointers: what the planner
// checks constraints on when no buffers exist yet.
func problemAt(w weight, m int) dispatch.Problem {
	return dispatch.Problem{M: m, N: w.n, K: w.k, In: w.dtype, Out: w.dtype, LDA: w.k, LDB: w.k, LDC: w.n,
		A: 1 << 40, B: 2 << 40, D: 3 << 40, Alpha: 1}
}

// nativeArch is the newest kernel arch dev runs natively for dt: the tuner
// times that image's kernels, not PTX compiled for an older arch.
func nativeArch(cat *kernels.Catalog, dev dispatch.DeviceInfo, dt dispatch.DType) dispatch.Arch {
	var a dispatch.Arch
	for _, k := range cat.Kernels() {
		if k.RunsOn(dev.Arch) && k.In == dt && k.Out == dt {
			a = max(a, k.MinArch)
		}
	}
	return a
}

// candidates lists the kernel × split-K pairs of the native image that may
// run w at every M of sp on dev, with a distinct effective split and a
// workspace within cfg.workspace. Those the model estimates slower than
// cfg.prune× the best estimate at every sample M come back as pruned.
func (cfg *tuneConfig) candidates(dev dispatch.DeviceInfo, w weight, sp span) (cands, pruned []candidate) {
	pl := dispatch.NewPlanner(cfg.cat, nil, dev)
	native := nativeArch(cfg.cat, dev, w.dtype)
	est := map[candidate][]float64{}
	var all []candidate
	for i := range cfg.cat.Kernels() {
		k := &cfg.cat.Kernels()[i]
		if k.MinArch != native {
			continue
		}
	splits:
		for _, split := range cfg.splits {
			c := candidate{k.Name, split}
			for _, m := range []int{sp.lo, sp.hi} {
				p := problemAt(w, m)
				plan, err := pl.PlanKernel(&p, k.Name, split)
				if err != nil || plan.SplitK != split || plan.WorkspaceBytes > cfg.workspace {
					continue splits
				}
			}
			for _, m := range sp.sampleMs() {
				p := problemAt(w, m)
				est[c] = append(est[c], dispatch.EstimateSeconds(k, &p, split, dev))
			}
			all = append(all, c)
		}
	}
	if cfg.prune <= 0 {
		return all, nil
	}
	for i := range sp.sampleMs() {
		best := math.Inf(1)
		for _, c := range all {
			best = min(best, est[c][i])
		}
		for _, c := range all {
			if est[c][i] <= cfg.prune*best && !slices.Contains(cands, c) {
				cands = append(cands, c)
			}
		}
	}
	for _, c := range all {
		if !slices.Contains(cands, c) {
			pruned = append(pruned, c)
		}
	}
	return cands, pruned
}

// tuneSpan measures one (weight, bucket) on ms: gate every candidate at the
// bucket's gate Ms, screen the survivors with a short timing at the sample
// Ms, time those within cfg.keep× of the fastest fully, time near-ties and
// noisy timings again, and time the kept candidates at the held-out probe M.
func (cfg *tuneConfig) tuneSpan(ms measurer, w weight, sp span) (*spanResult, error) {
	r := &spanResult{w: w, sp: sp, times: map[int]map[candidate]timing{}, probe: map[candidate]timing{}, events: map[int]timing{}}
	var cands []candidate
	cands, r.pruned = cfg.candidates(ms.device(), w, sp)
	r.passed = cands
	for _, m := range sp.gateMs() { // M outermost: a measurer keeps one M's reference
		var still []candidate
		for _, c := range r.passed {
			if err := ms.gate(w, m, c); errors.Is(err, errWrong) {
				r.rejects = append(r.rejects, rejectNote{c, m, err.Error()})
			} else if err != nil {
				return nil, fmt.Errorf("%s M=%d: gating %s: %w", w.name, m, c, err)
			} else {
				still = append(still, c)
			}
		}
		r.passed = still
	}
	r.kept = r.passed
	if len(r.passed) > 2 {
		screen, err := r.timeAll(ms, r.passed, sp.sampleMs(), cfg.screenReps, "screen")
		if err != nil {
			return nil, err
		}
		r.kept = nil
		for _, c := range r.passed {
			for _, m := range sp.sampleMs() {
				if screen[m][c].med <= cfg.keep*fastestAt(screen[m]) {
					r.kept = append(r.kept, c)
					break
				}
			}
		}
	}
	full, err := r.timeAll(ms, r.kept, sp.sampleMs(), cfg.reps, "full")
	if err != nil {
		return nil, err
	}
	r.times = full
	r.retimed = cfg.unsettled(r.times)
	again, err := r.timeAll(ms, r.retimed, sp.sampleMs(), 3*cfg.reps, "retime")
	if err != nil {
		return nil, err
	}
	for m, ts := range again {
		for c, t := range ts {
			r.times[m][c] = t
		}
	}
	if pm := sp.probeM(); pm > 0 {
		probe, err := r.timeAll(ms, r.kept, []int{pm}, cfg.reps, "probe")
		if err != nil {
			return nil, err
		}
		r.probe = probe[pm]
	}
	return r, nil
}

// timeAll times each candidate at each M (M outermost, so a measurer can
// keep one M's buffers) and logs the timings under phase.
func (r *spanResult) timeAll(ms measurer, cands []candidate, mm []int, reps int, phase string) (map[int]map[candidate]timing, error) {
	out := map[int]map[candidate]timing{}
	for _, m := range mm {
		out[m] = map[candidate]timing{}
		for _, c := range cands {
			t, err := ms.time(r.w, m, c, reps)
			if err != nil {
				return nil, fmt.Errorf("%s M=%d: timing %s: %w", r.w.name, m, c, err)
			}
			out[m][c] = t
			r.log = append(r.log, logRow{m, c, t, phase})
		}
	}
	return out, nil
}

func fastestAt(ts map[candidate]timing) float64 {
	best := math.Inf(1)
	for _, t := range ts {
		best = min(best, t.med)
	}
	return best
}

// unsettled lists the candidates worth timing again: those whose worst-case
// slowdown is within cfg.tie of the best's when there are two or more such
// (a near-tie decides the choice), and any with a noisy timing.
func (cfg *tuneConfig) unsettled(times map[int]map[candidate]timing) []candidate {
	ranked, _ := rank(medians(times, weight{}))
	var out []candidate
	for _, s := range ranked {
		if s.worst <= ranked[0].worst*(1+cfg.tie) {
			out = append(out, s.cd)
		}
	}
	if len(out) < 2 {
		out = nil
	}
	for _, ts := range times {
		for c, t := range ts {
			if t.dispersion() > cfg.noise && !slices.Contains(out, c) {
				out = append(out, c)
			}
		}
	}
	slices.SortFunc(out, compareCandidates)
	return out
}

// compareCandidates orders candidates by kernel name, then split-K.
func compareCandidates(a, b candidate) int {
	return cmp.Or(strings.Compare(a.kernel, b.kernel), cmp.Compare(a.split, b.split))
}

// medians keys median times by point for choose and rank.
func medians(times map[int]map[candidate]timing, w weight) map[point]map[candidate]float64 {
	out := map[point]map[candidate]float64{}
	for m, ts := range times {
		pt := point{m, w.n, w.k}
		out[pt] = map[candidate]float64{}
		for c, t := range ts {
			out[pt][c] = t.med
		}
	}
	return out
}

// fillUnits finds, per (dtype, bucket), the candidates kept for some aligned
// weight but not timed on another aligned weight that passed their gate:
// the default entry, chosen over all aligned weights together, needs every
// contender timed on every one of them.
func fillUnits(results []*spanResult) map[*spanResult][]candidate {
	type key struct {
		dt dispatch.DType
		sp span
	}
	contenders := map[key][]candidate{}
	for _, r := range results {
		if r.w.aligned() {
			k := key{r.w.dtype, r.sp}
			for _, c := range r.kept {
				if !slices.Contains(contenders[k], c) {
					contenders[k] = append(contenders[k], c)
				}
			}
		}
	}
	out := map[*spanResult][]candidate{}
	for _, r := range results {
		if !r.w.aligned() {
			continue
		}
		for _, c := range contenders[key{r.w.dtype, r.sp}] {
			if slices.Contains(r.passed, c) && !slices.Contains(r.kept, c) {
				out[r] = append(out[r], c)
			}
		}
	}
	return out
}

// fill times the missing contenders of one span fully at its sample Ms.
func (cfg *tuneConfig) fill(ms measurer, r *spanResult, cands []candidate) error {
	slices.SortFunc(cands, compareCandidates)
	ts, err := r.timeAll(ms, cands, r.sp.sampleMs(), cfg.reps, "fill")
	if err != nil {
		return err
	}
	for m, byC := range ts {
		for c, t := range byC {
			r.times[m][c] = t
		}
	}
	return nil
}

// samples turns the final timings into the table builder's samples.
func samples(arch dispatch.Arch, results []*spanResult) []sample {
	var out []sample
	for _, r := range results {
		for m, ts := range r.times {
			for c, t := range ts {
				out = append(out, sample{arch: arch, dtype: r.w.dtype, n: r.w.n, k: r.w.k, m: m, cand: c, us: t.med})
			}
		}
	}
	return out
}

// timedMs are every M of the span that is timed: the sample Ms and the probe.
func (sp span) timedMs() []int {
	if pm := sp.probeM(); pm > 0 {
		return []int{sp.lo, pm, sp.hi}
	}
	return sp.sampleMs()
}

// routedIn returns the candidate entries route w at m to: the exact
// entry's, or with def the default entry's.
func routedIn(entries []dispatch.Entry, w weight, m int, def bool) (candidate, bool) {
	for _, e := range entries {
		if e.In == w.dtype && (def && e.N == 0 && e.K == 0 || !def && e.N == w.n && e.K == w.k) {
			if b := e.Bucket(m); b != nil {
				return candidate{b.Kernel, b.SplitK}, true
			}
		}
	}
	return candidate{}, false
}

// eventColumn times the exact entries' choices at every timed M of r by
// per-call events, the report's second column.
func (cfg *tuneConfig) eventColumn(ms measurer, r *spanResult, entries []dispatch.Entry) error {
	for _, m := range r.sp.timedMs() {
		c, ok := routedIn(entries, r.w, m, false)
		if !ok {
			continue
		}
		t, err := ms.events(r.w, m, c, cfg.eventCalls)
		if err != nil {
			return fmt.Errorf("%s M=%d: events of %s: %w", r.w.name, m, c, err)
		}
		r.events[m] = t
		r.log = append(r.log, logRow{m, c, t, "events"})
	}
	return nil
}

// eventColumns runs eventColumn for every result over the measurers.
func (cfg *tuneConfig) eventColumns(ms []measurer, results []*spanResult, entries []dispatch.Entry) error {
	return runUnits(ms, len(results), func() {}, func(m measurer, i int) error { return cfg.eventColumn(m, results[i], entries) })
}
