package dispatch

import (
	"fmt"
	"math"
	"slices"

	"github.com/gemmroute/gemmroute/kernels"
)

// modelMs are the Ms at which the analytic model compares a reduction
// class with the normal mode, for a weight whose table entries choose none:
// the powers of two up to 4096, the tuner's range.
var modelMs = [...]int{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096}

// invariantRoute plans p in the batch-invariant mode (Limits.BatchInvariant):
// the class of p's weight (weightClass), the same for every M, and then the
// kernel of that class for this M (classRoute).
func (pl *Planner) invariantRoute(p *Problem, key routeKey) (*route, explanation) {
	c := pl.weightClass(p, key)
	return pl.inClass(p, key, c.cs, c.level, c.src, explanation{notes: slices.Clone(c.notes)})
}

// classChoice is the reduction class and split a weight runs in, in the
// batch-invariant mode: where it came from (level, src) and what was passed
// over on the way (notes).
type classChoice struct {
	cs    classSplit
	level Level
	src   string
	notes []string
}

// weightClass is p's weight's classChoice (decideClass), decided once per
// weight: by key without its M class and index width (the choice judges
// every M) and its Limits (the choice is within the planner's own), up to
// maxRoutes weights.
func (pl *Planner) weightClass(p *Problem, key routeKey) *classChoice {
	w := key
	w.mClass, w.big, w.lim = 0, false, Limits{}
	pl.mu.RLock()
	c, ok := pl.classes[w]
	pl.mu.RUnlock()
	if ok {
		return c
	}
	return remember(&pl.mu, pl.classes, w, pl.decideClass(p, key))
}

// decideClass is the class of p's weight: the exact entry's Invariant, the
// default entry's where it serves the weight at every M (servesEveryM; else
// that class without a split, where that does), or the model's choice.
func (pl *Planner) decideClass(p *Problem, key routeKey) *classChoice {
	var notes []string
	classes := pl.cat.Classes(key.types, pl.dev.Arch)
	exact, def := pl.table.Find(pl.dev.Arch, key.types, p.N, p.K)
	for _, lv := range []struct {
		e     *Entry
		level Level
	}{{exact, LevelExact}, {def, LevelDefault}} {
		switch {
		case lv.e == nil || lv.e.Invariant == nil:
			notes = append(notes, fmt.Sprintf("%s: no reduction class in the table for %s %s N=%d K=%d", lv.level, pl.dev.Arch, key.types, p.N, p.K))
		case !slices.Contains(classes, lv.e.Invariant.Class):
			notes = append(notes, fmt.Sprintf("%s: reduction class %s, which no kernel of the catalog computing %s on %s has: retune the table", lv.level, lv.e.Invariant.Class, key.types, pl.dev.Arch))
		default:
			inv := lv.e.Invariant
			src := fmt.Sprintf("the analytic model's choice for %s (%s), not measured", inv.Device, inv.Date)
			if inv.Source == SourceMeasured {
				src = fmt.Sprintf("measured on %s (%s), worst slowdown ×%.2f against the normal mode", inv.Device, inv.Date, inv.WorstSlowdown)
			}
			cs := pl.classSplit(inv.Class, inv.SplitK, key, p.K)
			if inv.Source == SourceMeasured {
				cs.gated = inv.Kernels
			}
			if lv.level == LevelDefault && !pl.servesEveryM(p, cs) { // chosen over other weights: this one's K may not suit it
				unserved := fmt.Sprintf("%s: reduction class %s at split-K %d, which no kernel serves at some M = 1…4096 of N=%d K=%d", lv.level, inv.Class, cs.split, p.N, p.K)
				one := pl.classSplit(inv.Class, 1, key, p.K)
				one.gated = cs.gated
				if cs.split == 1 || !pl.servesEveryM(p, one) {
					notes = append(notes, unserved)
					continue
				}
				notes = append(notes, unserved+": the class without a split")
				src += fmt.Sprintf("; here without its split-K %d, which does not serve this weight", cs.split)
				cs = one
			}
			return &classChoice{cs: cs, level: lv.level, src: src, notes: notes}
		}
	}
	class, worst := pl.modelClass(p, classes)
	src := fmt.Sprintf("the analytic model's choice over M = 1…4096, estimated worst slowdown ×%.2f against the normal mode, not measured", worst)
	return &classChoice{cs: pl.classSplit(class, 1, key, p.K), level: LevelHeuristic, src: src, notes: notes}
}

// servesEveryM reports whether a kernel of class split cs fits p's weight
// at every M of modelMs, within the planner's own Limits as modelClass
// judges. The default entry's class was chosen over other weights and may
// not serve this one: a K that its kernels' TMA cannot read, a K per split
// that no kernel's tile divides.
func (pl *Planner) servesEveryM(p *Problem, cs classSplit) bool {
	for _, m := range modelMs {
		q := *p
		q.M = m
		survivors, _ := filter(pl.cat, &q, pl.dev, pl.lim, cs.experimental)
		if !slices.ContainsFunc(survivors, func(k *kernels.KernelSpec) bool {
			return cs.admits(k, q.K) && fitsAt(k, &q, pl.dev, pl.lim, cs.split)
		}) {
			return false
		}
	}
	return true
}

// classSplit is the reduction a batch-invariant route keeps at every M: a
// class at split-K split, each split kps elements of K. Experimental
// kernels of the class are candidates only where a tune gates them: every
// one while the tuner measures the class (tuning: PlanClass), and for a
// measured entry the ones its tune ran (gated: Invariant.Kernels; among
// them the ones that sum their splits themselves, which serve the Ms whose
// workspace partials do not fit); for the model's choice none.
type classSplit struct {
	class      string
	split, kps int
	tuning     bool
	gated      []string
}

// experimental reports whether cs admits experimental kernel k.
func (cs *classSplit) experimental(k *kernels.KernelSpec) bool {
	return cs.tuning || slices.Contains(cs.gated, k.Name)
}

// classSplit is class at split-K split (≤ 1: none) for K elements, its K
// per split rounded to the class's step (kernels.Catalog.ClassStep).
func (pl *Planner) classSplit(class string, split int, key routeKey, k int) classSplit {
	cs := classSplit{class: class, split: max(split, 1), kps: k}
	if cs.split > 1 {
		cs.kps = kPerSplit(k, cs.split, max(pl.cat.ClassStep(class, key.types, pl.dev.Arch), 1))
	}
	return cs
}

// admits reports whether kernel k computes cs for K elements: of its
// class, and at a split, splitting K at cs's offsets (its own K per split,
// rounded to its TileK, is cs's).
func (cs *classSplit) admits(k *kernels.KernelSpec, K int) bool {
	return k.ReductionClass == cs.class && (cs.split == 1 || kPerSplit(K, cs.split, k.TileK) == cs.kps)
}

// inClass is p's route in reduction class and split cs, chosen at level
// from src: the normal mode's kernel for p when cs admits it and it fits at
// cs's split, else the heuristic's best that cs admits at that split.
func (pl *Planner) inClass(p *Problem, key routeKey, cs classSplit, level Level, src string, ex explanation) (*route, explanation) {
	normal := key
	normal.lim.BatchInvariant = false
	r, nex := pl.route(p, normal)
	if r.kernel == nil || !cs.admits(r.kernel, p.K) || !checkKernel(r.kernel, p, pl.dev, key.lim, cs.split).ok() {
		r = &route{}
		pl.heuristic(p, key, &cs, r, &nex)
	}
	r.level, r.splitK, r.class, r.classSource = level, cs.split, cs.class, src
	ex.rejected, ex.kernels = nex.rejected, nex.kernels
	ex.notes = append(ex.notes, nex.notes...)
	return r, ex
}

// modelClass is the class among classes whose estimated worst slowdown
// against the normal mode's estimate over modelMs is least (ChooseClass),
// for p's weight; "" when there is none. It judges within the planner's
// own Limits, not key's (a stream being captured without a workspace plans
// with NoSplitK), so that every stream gets the same class.
func (pl *Planner) modelClass(p *Problem, classes []string) (string, float64) {
	lim := pl.lim
	normal := make([]float64, len(modelMs))
	byClass := make(map[string][]float64, len(classes))
	for _, c := range classes {
		byClass[c] = make([]float64, len(modelMs))
	}
	for i, m := range modelMs {
		q := *p
		q.M = m
		normal[i] = math.Inf(1)
		for c := range byClass {
			byClass[c][i] = math.Inf(1)
		}
		survivors, _ := filter(pl.cat, &q, pl.dev, lim, nil)
		for _, k := range survivors {
			for _, s := range splitChoices {
				if !fitsAt(k, &q, pl.dev, lim, s) {
					continue
				}
				t := EstimateSeconds(k, &q, s, pl.dev)
				normal[i] = min(normal[i], t)
				if s == 1 && k.ReductionClass != "" {
					byClass[k.ReductionClass][i] = min(byClass[k.ReductionClass][i], t)
				}
			}
		}
	}
	return ChooseClass(normal, byClass)
}

// ChooseClass returns the reduction class whose worst slowdown against the
// normal mode is least, and that slowdown: normal[i] is the normal mode's
// time at the i-th M sample, byClass[c][i] class c's there (+Inf or 0
// where none of its kernels runs: the class is out). A sample the normal
// mode has no time for is skipped. A tie goes to the class of least total
// time, then to the first name. "" and +Inf when no class has every
// sample. The planner chooses by estimates, the tuner by measurements.
func ChooseClass(normal []float64, byClass map[string][]float64) (class string, worst float64) {
	worst, total := math.Inf(1), math.Inf(1)
	for _, c := range sortedKeys(byClass) {
		ts := byClass[c]
		w, sum := 0.0, 0.0
		for i, n := range normal {
			switch {
			case !(n > 0) || math.IsInf(n, 1):
				continue
			case i >= len(ts) || !(ts[i] > 0):
				w = math.Inf(1)
			default:
				w, sum = max(w, ts[i]/n), sum+ts[i]
			}
		}
		if w < worst || w == worst && sum < total && !math.IsInf(w, 1) {
			class, worst, total = c, w, sum
		}
	}
	return class, worst
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// PlanClass plans p in the batch-invariant mode in the named reduction
// class at split-K split (1: none), bypassing the table's choice (the
// tuner measures each class and split so). class must be a class name
// (kernels.ValidClass) that a kernel computing p's types on the planner's
// device has: else an *ArgError on "class"; split must be in
// [1, kernels.MaxSplitK]: else an *ArgError on "split". A problem no
// kernel of the class fits at that split is ErrNoKernel.
func (pl *Planner) PlanClass(p *Problem, class string, split int) (Plan, error) {
	if err := pl.check(p); err != nil {
		return Plan{}, err
	}
	lim := pl.lim
	lim.BatchInvariant = true
	key := pl.key(p, lim)
	if err := pl.checkClass(key, class); err != nil {
		return Plan{}, err
	}
	if split < 1 || split > kernels.MaxSplitK {
		return Plan{}, &ArgError{Field: "split", Value: split, Rule: fmt.Sprintf("a split-K in [1, %d] (1: none)", kernels.MaxSplitK)}
	}
	if p.empty() {
		return noop(p), nil
	}
	cs := pl.classSplit(class, split, key, p.K)
	cs.tuning = true // the tuner measures a class so, gating what runs
	r, _ := pl.inClass(p, key, cs, LevelForced, "forced (Planner.PlanClass)", explanation{})
	if r.kernel == nil {
		return Plan{}, pl.noKernelError(p, lim)
	}
	return geometry(p, r, pl, pl.dev.SMs, lim), nil
}

// checkClass returns an *ArgError when class is not a class of key's
// types on the planner's device.
func (pl *Planner) checkClass(key routeKey, class string) error {
	if !kernels.ValidClass(class) {
		return &ArgError{Field: "class", Value: class, Rule: kernels.ClassRule}
	}
	if classes := pl.cat.Classes(key.types, pl.dev.Arch); !slices.Contains(classes, class) {
		return &ArgError{Field: "class", Value: class, Rule: fmt.Sprintf("no kernel of the catalog computes %s on %s in this reduction class: use one of %v", key.types, pl.dev.Arch, classes)}
	}
	return nil
}
