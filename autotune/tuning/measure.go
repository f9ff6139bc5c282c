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
	again, err := r.timeAll(ms, r.Retimed, sp.SampleMs(), 3*cfg.Reps, "retime")
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
			t0 := time.Now()
			t, err := ms.Time(r.Weight, m, c, reps)
			r.spend(phase, t0)
			if err != nil {
				return nil, fmt.Errorf("%s M=%d: timing %s: %w", r.Weight.Name, m, c, err)
			}
			out[m][c] = t
			r.Log = append(r.Log, LogRow{m, c, t, phase})
		}
	}
	return out, nil
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
