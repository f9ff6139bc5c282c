package tuning

import (
	"errors"
	"fmt"
	"time"

	"github.com/gemmroute/gemmroute/dispatch"
)

// ChooseInvariant chooses w's reduction class for the batch-invariant mode
// by measurement: at each of ms it times what pl plans in the normal mode
// and, for every class of w's types on the device, what pl.PlanClass plans
// (each candidate gated by Check first, reps graph replays), and returns
// the class whose worst slowdown against the normal mode is least
// (dispatch.ChooseClass), as a measured Invariant for w's exact entry. A
// class a kernel of which fails the gate at some M is out; an error of
// any other kind stops the choice.
func ChooseInvariant(m Measurer, pl *dispatch.Planner, w Weight, ms []int, reps int) (dispatch.Invariant, error) {
	dev := m.Device()
	classes := pl.Catalog().Classes(w.Types, dev.Arch)
	normal := make([]float64, len(ms))
	byClass := make(map[string][]float64, len(classes))
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
			if byClass[c] == nil {
				byClass[c] = make([]float64, len(ms))
			}
			plan, err := pl.PlanClass(&p, c)
			if err != nil { // no kernel of the class fits here: the class is out
				continue
			}
			t, err := measure(plan, mm)
			switch {
			case errors.Is(err, ErrWrong): // the gate threw the kernel out: so is its class
			case err != nil:
				return dispatch.Invariant{}, fmt.Errorf("tuning: %s at M=%d, class %s: %w", w.Name, mm, c, err)
			default:
				byClass[c][i] = t
			}
		}
	}
	class, worst := dispatch.ChooseClass(normal, byClass)
	if class == "" {
		return dispatch.Invariant{}, fmt.Errorf("tuning: %s: no reduction class of %s ran every M of %v and passed the gate: the batch-invariant mode cannot serve this weight (keep the default entry's class)", w.Name, w.Types, ms)
	}
	return dispatch.Invariant{Class: class, Source: dispatch.SourceMeasured, Device: dev.Name,
		Date: time.Now().UTC().Format(time.DateOnly), WorstSlowdown: round2(worst)}, nil
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
