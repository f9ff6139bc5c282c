package tuning

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gemmroute/gemmroute/dispatch"
)

// Reject is a candidate the correctness gate threw out.
type Reject struct {
	Candidate Candidate
	M         int
	Why       string
}

// LogRow is one timing taken; Phase is screen, full, retime, probe, fill or
// events.
type LogRow struct {
	M         int
	Candidate Candidate
	Timing    Timing
	Phase     string
}

// SpanResult is what one (weight, bucket) measured.
type SpanResult struct {
	Weight  Weight
	Span    Span
	Passed  []Candidate                  // constraint survivors that passed the gate
	Rejects []Reject                     // what the gate threw out
	Pruned  []Candidate                  // estimated too slow to time
	Kept    []Candidate                  // fully timed at the sample Ms (the screen's survivors)
	Retimed []Candidate                  // near-ties and noisy candidates, timed again in RetimeRounds interleaved rounds
	Times   map[int]map[Candidate]Timing // final timings at the sample Ms
	Events  map[int]Timing               // the exact entry's choice by per-call events, by M
	Probe   map[Candidate]Timing         // held-out timings at Span.ProbeM()
	Log     []LogRow
	Spent   map[string]Spend // wall time of the measurer's calls by phase (gate, screen, full, …)
}

// Spend is what one phase of a run cost: its measurer calls and their wall
// time, host work included (so that the next run can be budgeted by
// measurement rather than by the model's guesses).
type Spend struct {
	Calls   int
	Seconds float64
}

// phases are a run's phases in the order it goes through them.
var phases = []string{"gate", "screen", "full", "retime", "probe", "fill", "events"}

// PhaseSpend is one phase's Spend over a run.
type PhaseSpend struct {
	Phase string
	Spend
}

// Spent sums the spans' Spent by phase, in the order the run goes through
// them, and their seconds by bucket.
func (r *Result) Spent() (byPhase []PhaseSpend, bySpan map[Span]float64) {
	sum, bySpan := map[string]Spend{}, map[Span]float64{}
	for _, s := range r.Spans {
		for ph, sp := range s.Spent {
			t := sum[ph]
			t.Calls += sp.Calls
			t.Seconds += sp.Seconds
			sum[ph] = t
			bySpan[s.Span] += sp.Seconds
		}
	}
	for _, ph := range phases {
		if s, ok := sum[ph]; ok {
			byPhase = append(byPhase, PhaseSpend{ph, s})
			delete(sum, ph)
		}
	}
	for _, ph := range slices.Sorted(maps.Keys(sum)) { // a phase not in the list, last
		byPhase = append(byPhase, PhaseSpend{ph, sum[ph]})
	}
	return byPhase, bySpan
}

// spend adds one call of phase that started at t0 to r.Spent.
func (r *SpanResult) spend(phase string, t0 time.Time) {
	if r.Spent == nil {
		r.Spent = map[string]Spend{}
	}
	s := r.Spent[phase]
	s.Calls++
	s.Seconds += time.Since(t0).Seconds()
	r.Spent[phase] = s
}

// Result is a tuning run: every (weight, bucket) measured, in the order of
// the configuration's weights and then M, and the entries chosen from them.
type Result struct {
	Config  *Config
	Device  dispatch.DeviceInfo
	Spans   []*SpanResult
	Entries []dispatch.Entry // one exact entry per weight, one default per dtype
	Choices []Choice         // every bucket of Entries, with its bucket loss
	// Unmeasured are the (weight, bucket) units Config.Deadline stopped
	// before they started (their buckets keep the base table's choices),
	// and NoEvents says the events column was left out for the same reason.
	Unmeasured []Unit
	NoEvents   bool
}

// Unit is one weight at one bucket: what a run measures at a time.
type Unit struct {
	Weight Weight
	Span   Span
}

// Tune measures every weight at every bucket of cfg over ms (one kind of
// device; the work is spread over them), cuBLASLt's algorithms among the
// candidates where cfg.VendorUse allows (Result.Config says what ran),
// chooses the entries, with base's
// choices for buckets nothing measured, and times each exact entry's choices
// by per-call events.
func Tune(cfg *Config, ms []Measurer, base *dispatch.Table) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if len(ms) == 0 {
		return nil, errors.New("tuning: no measurer: give at least one device")
	}
	dev := ms[0].Device()
	for _, m := range ms[1:] {
		if m.Device().Name != dev.Name {
			return nil, fmt.Errorf("tuning: the measurers mix %s and %s: tune one kind of GPU per run", dev.Name, m.Device().Name)
		}
	}
	run := *cfg // what this run measures: cuBLASLt only where every measurer has it
	run.VendorAlgorithms, _ = cfg.VendorUse(ms)
	run.incumbent = base
	cfg = &run
	spans, unmeasured, err := cfg.measure(ms)
	if err != nil {
		return nil, err
	}
	if len(unmeasured) > 0 { // cut by the deadline: the run tunes the buckets every weight finished
		spans, unmeasured = cfg.keepFinished(spans, unmeasured)
	}
	r := &Result{Config: cfg, Device: dev, Spans: spans, Unmeasured: unmeasured}
	if len(spans) == 0 {
		r.NoEvents = true
		return r, nil // nothing to merge: the base table stands
	}
	if r.Entries, r.Choices, err = buildEntries(samples(dev.Arch, spans), base, cfg.MaxM, cfg.Catalog); err != nil {
		return nil, err
	}
	if r.Entries, err = keepOutside(r.Entries, base, cfg.MinM, cfg.MaxM); err != nil {
		return nil, err
	}
	if cfg.Changed != nil {
		if r.Entries, r.Choices, err = cfg.keepUnchanged(r.Entries, r.Choices, spans, dev); err != nil {
			return nil, err
		}
	}
	if cfg.MinM > 1 { // the choices the run made, not the buckets it kept
		r.Choices = slices.DeleteFunc(r.Choices, func(c Choice) bool { return c.Bucket.MinM < cfg.MinM || c.Bucket.MaxM == 0 })
	}
	if r.NoEvents = cfg.pastDeadline(); r.NoEvents {
		return r, nil
	}
	exact := &dispatch.Table{Entries: r.Entries}
	err = runUnits(ms, len(spans), func() {}, func(m Measurer, i int) error { return cfg.eventColumn(m, spans[i], exact) })
	return r, err
}

// measure tunes every (weight, bucket) over the measurers, largest Ms first
// so that devices finish together, then times the default entries' missing
// contenders; it returns the units Config.Deadline kept from starting.
func (cfg *Config) measure(ms []Measurer) ([]*SpanResult, []Unit, error) {
	var units []Unit
	sp, dev := cfg.Spans(), ms[0].Device()
	for i := len(sp) - 1; i >= 0; i-- {
		for _, w := range cfg.Weights {
			if cfg.Changed == nil || cfg.changedRoute(routesOf(cfg.BaseRoutes, dev, w, sp[i])) {
				units = append(units, Unit{w, sp[i]})
			}
		}
	}
	var mu sync.Mutex // Progress is called from one goroutine at a time
	done, total := 0, len(units)
	tick := func() {
		if cfg.Progress != nil {
			mu.Lock()
			done++
			cfg.Progress(done, total)
			mu.Unlock()
		}
	}
	results := make([]*SpanResult, len(units))
	err := runUnits(ms, len(units), tick, func(m Measurer, i int) (err error) {
		if cfg.pastDeadline() {
			return nil // not started: the base table's choices stand
		}
		results[i], err = cfg.tuneSpan(m, units[i].Weight, units[i].Span)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	var unmeasured []Unit
	for i, r := range results {
		if r == nil {
			unmeasured = append(unmeasured, units[i])
		}
	}
	results = slices.DeleteFunc(results, func(r *SpanResult) bool { return r == nil })
	fills := fillUnits(results)
	var todo []*SpanResult
	for _, r := range results {
		if len(fills[r]) > 0 {
			todo = append(todo, r)
		}
	}
	mu.Lock()
	total += len(todo)
	mu.Unlock()
	err = runUnits(ms, len(todo), tick, func(m Measurer, i int) error { return cfg.fill(m, todo[i], fills[todo[i]]) })
	slices.SortFunc(results, func(a, b *SpanResult) int {
		return cmp.Or(slices.Index(cfg.Weights, a.Weight)-slices.Index(cfg.Weights, b.Weight), a.Span.Lo-b.Span.Lo)
	})
	return results, unmeasured, err
}

// keepFinished narrows a run that Config.Deadline cut to the buckets above
// the highest one a unit of which did not start (units run from the
// largest Ms down, every weight at a bucket before the next): it moves
// cfg.MinM up to them, so that the buckets below keep the base table's
// choices, and returns their results and the units it leaves unmeasured
// (those of the cut bucket that did run included).
func (cfg *Config) keepFinished(spans []*SpanResult, unmeasured []Unit) ([]*SpanResult, []Unit) {
	cut := 0
	for _, u := range unmeasured {
		cut = max(cut, u.Span.Hi)
	}
	for _, r := range spans {
		if r.Span.Hi <= cut {
			unmeasured = append(unmeasured, Unit{r.Weight, r.Span})
		}
	}
	cfg.MinM = cut + 1
	return slices.DeleteFunc(spans, func(r *SpanResult) bool { return r.Span.Hi <= cut }), unmeasured
}

// runUnits calls do(m, i) for every i < n, spreading the calls over the
// measurers (one goroutine each), and done after each call that succeeds;
// after the first error no new call starts.
func runUnits(ms []Measurer, n int, done func(), do func(Measurer, int) error) error {
	var next atomic.Int64
	var failed atomic.Bool
	var mu sync.Mutex
	var errs []error
	var wg sync.WaitGroup
	for _, m := range ms {
		wg.Go(func() {
			for !failed.Load() {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if err := do(m, i); err != nil {
					failed.Store(true)
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
					return
				}
				done()
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// fillUnits finds, per (dtype, bucket), the candidates kept for some aligned
// weight but not timed on another aligned weight that passed their gate:
// the default entry, chosen over all aligned weights together, needs every
// contender timed on every one of them.
func fillUnits(results []*SpanResult) map[*SpanResult][]Candidate {
	type key struct {
		ty dispatch.Types
		sp Span
	}
	contenders := map[key][]Candidate{}
	for _, r := range results {
		if r.Weight.Aligned() {
			k := key{r.Weight.Types, r.Span}
			for _, c := range r.Kept {
				if !slices.Contains(contenders[k], c) {
					contenders[k] = append(contenders[k], c)
				}
			}
		}
	}
	out := map[*SpanResult][]Candidate{}
	for _, r := range results {
		if !r.Weight.Aligned() {
			continue
		}
		for _, c := range contenders[key{r.Weight.Types, r.Span}] {
			if slices.Contains(r.Passed, c) && !slices.Contains(r.Kept, c) {
				out[r] = append(out[r], c)
			}
		}
	}
	return out
}

// fill times the missing contenders of one span fully at its sample Ms.
func (cfg *Config) fill(ms Measurer, r *SpanResult, cands []Candidate) error {
	slices.SortFunc(cands, compareCandidates)
	ts, err := r.timeAll(ms, cands, r.Span.SampleMs(), cfg.Reps, "fill")
	if err != nil {
		return err
	}
	for m, byC := range ts {
		for c, t := range byC {
			r.Times[m][c] = t
		}
	}
	return nil
}

// eventColumn times the exact entries' choices at every timed M of r by
// per-call events, the report's second column.
func (cfg *Config) eventColumn(ms Measurer, r *SpanResult, exact *dispatch.Table) error {
	for _, m := range r.Span.TimedMs() {
		b := exact.Route(r.Weight.Key(ms.Device().Arch), m)
		if b == nil {
			continue
		}
		c := BucketCandidate(b)
		t0 := time.Now()
		t, err := ms.Events(r.Weight, m, c, cfg.EventCalls)
		r.spend("events", t0)
		if err != nil {
			return fmt.Errorf("%s M=%d: events of %s: %w", r.Weight.Name, m, c, err)
		}
		r.Events[m] = t
		r.Log = append(r.Log, LogRow{m, c, t, "events"})
	}
	return nil
}
