package tuning

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"
)

// tuneSpan measures one (weight, bucket) on ms: gate every candidate at the
// bucket's gate Ms, screen the survivors with a short timing at the sample
// Ms, time those within cfg.Keep× of the fastest fully, time near-ties and
// noisy timings again, and time the kept candidates at the held-out probe M.
func (cfg *Config) tuneSpan(ms Measurer, w Weight, sp Span) (*SpanResult, error) {
	r := &SpanResult{Weight: w, Span: sp, Times: map[int]map[Candidate]Timing{}, Probe: map[Candidate]Timing{}, Events: map[int]Timing{}}
	var cands []Candidate
	cands, r.Pruned = cfg.candidates(ms.Device(), w, sp)
	vendor, err := cfg.vendorCandidates(ms, w, sp)
	if err != nil {
		return nil, err
	}
	cands = append(cands, vendor...)
	r.Passed = cands
	for _, m := range sp.GateMs() { // M outermost: a measurer keeps one M's reference
		var still []Candidate
		for _, c := range r.Passed {
			t0 := time.Now()
			err := ms.Check(w, m, c)
			r.spend("gate", t0)
			if errors.Is(err, ErrWrong) {
				r.Rejects = append(r.Rejects, Reject{c, m, err.Error()})
			} else if err != nil {
				return nil, fmt.Errorf("%s M=%d: gating %s: %w", w.Name, m, c, err)
			} else {
				still = append(still, c)
			}
		}
		r.Passed = still
	}
	r.Kept = r.Passed
	if len(r.Passed) > 2 {
		screen, err := r.timeAll(ms, r.Passed, sp.SampleMs(), cfg.ScreenReps, "screen")
		if err != nil {
			return nil, err
		}
		// ours are screened against the fastest of ours (a bucket that
		// cuBLASLt wins keeps our best too), cuBLASLt's against the fastest
		r.Kept = nil
		for _, c := range r.Passed {
			for _, m := range sp.SampleMs() {
				if screen[m][c].Median <= cfg.Keep*fastestAt(screen[m], c.IsVendor()) {
					r.Kept = append(r.Kept, c)
					break
				}
			}
		}
	}
	full, err := r.timeAll(ms, r.Kept, sp.SampleMs(), cfg.Reps, "full")
	if err != nil {
		return nil, err
	}
	r.Times = full
	r.Retimed = cfg.unsettled(r.Times)
	again, err := r.timeRounds(ms, r.Retimed, sp.SampleMs(), cfg.Reps, RetimeRounds, "retime")
	if err != nil {
		return nil, err
	}
	for m, ts := range again {
		for c, t := range ts {
			r.Times[m][c] = t
		}
	}
	if pm := sp.ProbeM(); pm > 0 {
		probe, err := r.timeAll(ms, r.Kept, []int{pm}, cfg.Reps, "probe")
		if err != nil {
			return nil, err
		}
		r.Probe = probe[pm]
	}
	return r, nil
}

// timeAll times each candidate at each M (M outermost, so that a measurer
// can keep one M's buffers) and logs the timings under phase.
func (r *SpanResult) timeAll(ms Measurer, cands []Candidate, mm []int, reps int, phase string) (map[int]map[Candidate]Timing, error) {
	out := map[int]map[Candidate]Timing{}
	for _, m := range mm {
		out[m] = map[Candidate]Timing{}
		for _, c := range cands {
			t, err := r.timeOne(ms, m, c, reps, phase)
			if err != nil {
				return nil, err
			}
			out[m][c] = t
		}
	}
	return out, nil
}

// timeOne times c at m (reps replays) and logs the timing under phase.
func (r *SpanResult) timeOne(ms Measurer, m int, c Candidate, reps int, phase string) (Timing, error) {
	t0 := time.Now()
	t, err := ms.Time(r.Weight, m, c, reps)
	r.spend(phase, t0)
	if err != nil {
		return Timing{}, fmt.Errorf("%s M=%d: timing %s: %w", r.Weight.Name, m, c, err)
	}
	r.Log = append(r.Log, LogRow{m, c, t, phase})
	return t, nil
}

// RetimeRounds is how many rounds the retime phase takes (Config.Reps
// replays a candidate each round).
const RetimeRounds = 3

// timeRounds times each candidate at each M in rounds, the candidates in
// turn within a round, reps replays each time, and keeps per candidate the
// median of its rounds' medians (and of their p90s). A card's clock drifts
// over the seconds a phase takes — on an H100 one kernel ran 233 µs in the
// screen and 253 µs in the full timing a few seconds later (docs/perf/
// 2026-12-07-h200-e, call B) — so candidates timed one after the other
// could be ranked by the drift; timed in turn, each sees it alike.
func (r *SpanResult) timeRounds(ms Measurer, cands []Candidate, mm []int, reps, rounds int, phase string) (map[int]map[Candidate]Timing, error) {
	out := map[int]map[Candidate]Timing{}
	for _, m := range mm { // M outermost, as timeAll
		byC := map[Candidate][]Timing{}
		for range rounds {
			for _, c := range cands {
				t, err := r.timeOne(ms, m, c, reps, phase)
				if err != nil {
					return nil, err
				}
				byC[c] = append(byC[c], t)
			}
		}
		out[m] = map[Candidate]Timing{}
		for c, ts := range byC {
			out[m][c] = Timing{Median: middle(ts, func(t Timing) float64 { return t.Median }), P90: middle(ts, func(t Timing) float64 { return t.P90 })}
		}
	}
	return out, nil
}

// middle is the median of f over ts (the lower middle of an even count).
func middle(ts []Timing, f func(Timing) float64) float64 {
	xs := make([]float64, len(ts))
	for i, t := range ts {
		xs[i] = f(t)
	}
	slices.Sort(xs)
	return xs[(len(xs)-1)/2]
}

// fastestAt is the fastest median of ts: of every candidate with vendor,
// else of our kernels only.
func fastestAt(ts map[Candidate]Timing, vendor bool) float64 {
	best := math.Inf(1)
	for c, t := range ts {
		if vendor || !c.IsVendor() {
			best = min(best, t.Median)
		}
	}
	return best
}

// unsettled lists the candidates worth timing again: those whose worst-case
// slowdown is within cfg.Tie of the best's when there are two or more such
// (a near-tie decides the choice), and any with a noisy timing.
func (cfg *Config) unsettled(times map[int]map[Candidate]Timing) []Candidate {
	ranked, _ := rank(medians(times, Weight{}))
	var out []Candidate
	for _, s := range ranked {
		if s.worst <= ranked[0].worst*(1+cfg.Tie) {
			out = append(out, s.cd)
		}
	}
	if len(out) < 2 {
		out = nil
	}
	for _, ts := range times {
		for c, t := range ts {
			if t.Dispersion() > cfg.Noise && !slices.Contains(out, c) {
				out = append(out, c)
			}
		}
	}
	slices.SortFunc(out, compareCandidates)
	return out
}

// medians keys median times by point for choose and rank.
func medians(times map[int]map[Candidate]Timing, w Weight) map[point]map[Candidate]float64 {
	out := map[point]map[Candidate]float64{}
	for m, ts := range times {
		pt := point{m, w.N, w.K}
		out[pt] = map[Candidate]float64{}
		for c, t := range ts {
			out[pt][c] = t.Median
		}
	}
	return out
}
