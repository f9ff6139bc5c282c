package tuning

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/gemmroute/gemmroute/dispatch"
)

// invariantSplits are the split-K factors a class is measured at for the
// batch-invariant mode: every M of the weight then splits K alike.
var invariantSplits = [...]int{1, 2, 4}

// invariantCap is the slowdown against the normal mode past which a class
// at a split is out for the weight at once, its larger Ms not timed: it
// could be chosen only where every class is slower still (the chosen
// classes' worst on Llama-3-8B was 1.18–1.67, H100, 2026-12-08). The Ms
// rise, so the decode classes leave at small M, before their seconds-long
// timings at M = 4096.
const invariantCap = 4.0

// classSamples are one weight's (or several weights') measured times at
// each M sample: the normal mode's, and each class's at each split of
// invariantSplits under ChooseClass's name for it (the class, "@S" after
// it at a split), 0 where it did not run or failed the gate; and under the
// same name the experimental kernels that ran and passed the gate.
type classSamples struct {
	normal  []float64
	byClass map[string][]float64
	keys    map[string]classAt // a name's class and split
	gated   map[string][]string
}

// classAt is a reduction class at a split-K.
type classAt struct {
	class string
	split int
}

// ChooseInvariant chooses w's reduction class and its split-K for the
// batch-invariant mode by measurement: at each of ms it times what pl plans
// in the normal mode and, for every class of w's types on the device at
// each of invariantSplits, what pl.PlanClass plans (each candidate gated by
// Check first, reps graph replays), and returns the class and split whose
// worst slowdown against the normal mode is least (dispatch.ChooseClass;
// a tie goes to the least total time, then to split-K 1), as a measured
// Invariant for w's exact entry. A class and split that no kernel serves
// at some M (a split whose partials do not fit), or a kernel of which
// fails the gate there, is out; an error of any other kind stops the
// choice.
func ChooseInvariant(m Measurer, pl *dispatch.Planner, w Weight, ms []int, reps int) (dispatch.Invariant, error) {
	s, err := measureClasses(m, pl, w, ms, reps)
	if err != nil {
		return dispatch.Invariant{}, err
	}
	return s.chooseFor(w, ms, m.Device())
}

// chooseFor is w's choice over its samples s at ms (choose), or the error
// that says no class serves it.
func (s classSamples) chooseFor(w Weight, ms []int, dev dispatch.DeviceInfo) (dispatch.Invariant, error) {
	inv, ok := s.choose(dev)
	if !ok {
		return inv, fmt.Errorf("tuning: %s: no reduction class of %s ran every M of %v and passed the gate: the batch-invariant mode cannot serve this weight (keep the default entry's class)", w.Name, w.Types, ms)
	}
	return inv, nil
}

// measureClasses times w in the normal mode and in every class at every
// split at each of ms (ChooseInvariant), in order, a class at a split no
// more once it is out (invariantCap).
func measureClasses(m Measurer, pl *dispatch.Planner, w Weight, ms []int, reps int) (classSamples, error) {
	classes := pl.Catalog().Classes(w.Types, m.Device().Arch)
	s := classSamples{normal: make([]float64, len(ms)), byClass: map[string][]float64{}, keys: map[string]classAt{}, gated: map[string][]string{}}
	type at struct {
		c Candidate
		m int
	}
	timed := map[at]float64{} // so that a kernel both modes plan is timed once
	out := map[string]bool{}  // the classes at a split that are out: not planned or timed again
	measure := func(plan dispatch.Plan, mm int) (float64, error) {
		c := CandidateOf(plan)
		if t, ok := timed[at{c, mm}]; ok {
			return t, nil
		}
		if err := m.Check(w, mm, c); err != nil {
			return 0, err
		}
		t, err := m.Time(w, mm, c, reps)
		if err != nil {
			return 0, err
		}
		timed[at{c, mm}] = t.Median
		return t.Median, nil
	}
	for i, mm := range ms {
		p := dispatch.PlaceholderProblem(mm, w.N, w.K, w.Types)
		plan, err := pl.Plan(&p)
		if err != nil {
			return s, fmt.Errorf("tuning: %s at M=%d in the normal mode: %w", w.Name, mm, err)
		}
		if s.normal[i], err = measure(plan, mm); err != nil {
			return s, fmt.Errorf("tuning: %s at M=%d, the normal mode's %s: %w: the normal table must pass the gate (check it with autotune check)", w.Name, mm, plan.KernelName(), err)
		}
		for _, c := range classes {
			for _, sp := range invariantSplits {
				key := c
				if sp > 1 {
					key = fmt.Sprintf("%s@%d", c, sp)
				}
				if s.byClass[key] == nil {
					s.byClass[key], s.keys[key] = make([]float64, len(ms)), classAt{c, sp}
				}
				if out[key] {
					continue
				}
				plan, err := pl.PlanClass(&p, c, sp)
				if err != nil { // no kernel of the class fits here at this split: out
					out[key] = true
					continue
				}
				t, err := measure(plan, mm)
				switch {
				case errors.Is(err, ErrWrong): // the gate threw the kernel out: so is its class at this split
					out[key] = true
				case err != nil:
					return s, fmt.Errorf("tuning: %s at M=%d, class %s at split-K %d: %w", w.Name, mm, c, sp, err)
				case t > invariantCap*s.normal[i]:
					out[key] = true
					clear(s.byClass[key]) // every sample 0: out
				default:
					s.byClass[key][i] = t
					if plan.Kernel.Experimental && !slices.Contains(s.gated[key], plan.Kernel.Name) {
						s.gated[key] = append(s.gated[key], plan.Kernel.Name)
					}
				}
			}
		}
	}
	return s, nil
}

// pool is the samples of several weights side by side: a class and split
// that one of them lacks is out for all (its samples there stay 0).
func pool(ws []classSamples) classSamples {
	out := classSamples{byClass: map[string][]float64{}, keys: map[string]classAt{}, gated: map[string][]string{}}
	for _, w := range ws {
		maps.Copy(out.keys, w.keys)
		for key, names := range w.gated {
			for _, n := range names {
				if !slices.Contains(out.gated[key], n) {
					out.gated[key] = append(out.gated[key], n)
				}
			}
		}
	}
	for _, w := range ws {
		for key := range out.keys {
			v := w.byClass[key]
			if v == nil {
				v = make([]float64, len(w.normal))
			}
			out.byClass[key] = append(out.byClass[key], v...)
		}
		out.normal = append(out.normal, w.normal...)
	}
	return out
}

// choose is the class and split of least worst slowdown over s
// (dispatch.ChooseClass) as a measured Invariant on dev, with the
// experimental kernels it ran (gated); false when none ran every sample.
func (s classSamples) choose(dev dispatch.DeviceInfo) (dispatch.Invariant, bool) {
	key, worst := dispatch.ChooseClass(s.normal, s.byClass)
	if key == "" {
		return dispatch.Invariant{}, false
	}
	inv := dispatch.Invariant{Class: s.keys[key].class, Source: dispatch.SourceMeasured, Device: dev.Name,
		Date: time.Now().UTC().Format(time.DateOnly), WorstSlowdown: round2(worst), Kernels: slices.Sorted(slices.Values(s.gated[key]))}
	if sp := s.keys[key].split; sp > 1 {
		inv.SplitK = sp
	}
	return inv, true
}

// Invariants chooses, with m, the reduction class of every weight of cfg
// that t holds an exact entry for (ChooseInvariant at the upper edge of
// every span, cfg.Reps replays) and records it in that entry; then, for
// each of their types that t has a default entry for, the class and split
// of least worst slowdown over all those weights' samples together, which
// the default entry records: the class of the weights no one tuned. t is
// the tuned table: the normal mode the classes are judged against. Past
// stop (when set) it starts no more weights: it returns the names of those
// it left (their entries keep their classes; the default's is chosen over
// the weights measured).
func Invariants(cfg *Config, m Measurer, t *dispatch.Table, stop time.Time) (left []string, err error) {
	dev := m.Device()
	pl := dispatch.NewPlanner(cfg.Catalog, t, dev, dispatch.Limits{WorkspaceBytes: cfg.Workspace})
	var ms []int
	for _, s := range Spans(cfg.MaxM) {
		ms = append(ms, s.Hi)
	}
	byTypes := map[dispatch.Types][]classSamples{}
	var order []dispatch.Types
	for _, w := range cfg.Weights {
		e, _ := t.Find(dev.Arch, w.Types, w.N, w.K)
		if e == nil {
			continue
		}
		if !stop.IsZero() && time.Now().After(stop) {
			left = append(left, w.Name)
			continue
		}
		s, err := measureClasses(m, pl, w, ms, cfg.Reps)
		if err != nil {
			return left, fmt.Errorf("tuning: the batch-invariant class of %s: %w", w.Name, err)
		}
		inv, err := s.chooseFor(w, ms, dev)
		if err != nil {
			return left, fmt.Errorf("tuning: the batch-invariant class of %s: %w", w.Name, err)
		}
		e.Invariant = &inv
		if byTypes[w.Types] == nil {
			order = append(order, w.Types)
		}
		byTypes[w.Types] = append(byTypes[w.Types], s)
	}
	for _, types := range order {
		_, def := t.Find(dev.Arch, types, 0, 0)
		if def == nil {
			continue
		}
		if inv, ok := pool(byTypes[types]).choose(dev); ok {
			def.Invariant = &inv
		}
	}
	return left, nil
}
