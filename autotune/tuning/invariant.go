package tuning

import (
	"errors"
	"fmt"
	"time"

	"github.com/gemmroute/gemmroute/dispatch"
)

// invariantSplits are the split-K factors a class is measured at for the
// batch-invariant mode: every M of the weight then splits K alike.
var invariantSplits = [...]int{1, 2, 4}

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
	dev := m.Device()
	classes := pl.Catalog().Classes(w.Types, dev.Arch)
	normal := make([]float64, len(ms))
	type classAt struct {
		class string
		split int
	}
	byClass := make(map[string][]float64, len(classes)*len(invariantSplits))
	keys := map[string]classAt{} // ChooseClass's names: the class, "@S" after it at a split
	type at struct {
		c Candidate
		m int
	}
	timed := map[at]float64{} // so that a kernel both modes plan is timed once
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
			return dispatch.Invariant{}, fmt.Errorf("tuning: %s at M=%d in the normal mode: %w", w.Name, mm, err)
		}
		if normal[i], err = measure(plan, mm); err != nil {
			return dispatch.Invariant{}, fmt.Errorf("tuning: %s at M=%d, the normal mode's %s: %w: the normal table must pass the gate (check it with autotune check)", w.Name, mm, plan.KernelName(), err)
		}
		for _, c := range classes {
			for _, s := range invariantSplits {
				key := c
				if s > 1 {
					key = fmt.Sprintf("%s@%d", c, s)
				}
				if byClass[key] == nil {
					byClass[key], keys[key] = make([]float64, len(ms)), classAt{c, s}
				}
				plan, err := pl.PlanClass(&p, c, s)
				if err != nil { // no kernel of the class fits here at this split: out
					continue
				}
				t, err := measure(plan, mm)
				switch {
				case errors.Is(err, ErrWrong): // the gate threw the kernel out: so is its class at this split
				case err != nil:
					return dispatch.Invariant{}, fmt.Errorf("tuning: %s at M=%d, class %s at split-K %d: %w", w.Name, mm, c, s, err)
				default:
					byClass[key][i] = t
				}
			}
		}
	}
	key, worst := dispatch.ChooseClass(normal, byClass)
	if key == "" {
		return dispatch.Invariant{}, fmt.Errorf("tuning: %s: no reduction class of %s ran every M of %v and passed the gate: the batch-invariant mode cannot serve this weight (keep the default entry's class)", w.Name, w.Types, ms)
	}
	inv := dispatch.Invariant{Class: keys[key].class, Source: dispatch.SourceMeasured, Device: dev.Name,
		Date: time.Now().UTC().Format(time.DateOnly), WorstSlowdown: round2(worst)}
	if s := keys[key].split; s > 1 {
		inv.SplitK = s
	}
	return inv, nil
}

// Invariants chooses, with m, the reduction class of every weight of cfg
// that t holds an exact entry for (ChooseInvariant at the upper edge of
// every span, cfg.Reps replays) and records it in that entry. t is the
// tuned table: the normal mode the classes are judged against.
func Invariants(cfg *Config, m Measurer, t *dispatch.Table) error {
	dev := m.Device()
	pl := dispatch.NewPlanner(cfg.Catalog, t, dev, dispatch.Limits{WorkspaceBytes: cfg.Workspace})
	var ms []int
	for _, s := range Spans(cfg.MaxM) {
		ms = append(ms, s.Hi)
	}
	for _, w := range cfg.Weights {
		e, _ := t.Find(dev.Arch, w.Types, w.N, w.K)
		if e == nil {
			continue
		}
		inv, err := ChooseInvariant(m, pl, w, ms, cfg.Reps)
		if err != nil {
			return fmt.Errorf("tuning: the batch-invariant class of %s: %w", w.Name, err)
		}
		e.Invariant = &inv
	}
	return nil
}
