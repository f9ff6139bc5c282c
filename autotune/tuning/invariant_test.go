package tuning

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gemmroute/gemmroute/dispatch"
	"github.com/gemmroute/gemmroute/kernels"
)

// classTimes is a Measurer whose time for a kernel is its class's: fast
// for one class, twice that for every other, half of fast's at split-K
// fastSplit (0: none); wrong fails the gate for a class's kernels.
type classTimes struct {
	idle
	cat         *kernels.Catalog
	fast, wrong string
	fastSplit   int
	checked     int
}

func (c *classTimes) Check(_ Weight, _ int, cand Candidate) error {
	c.checked++
	if c.wrong != "" && c.cat.Kernel(cand.Kernel).ReductionClass == c.wrong {
		return fmt.Errorf("%w: poisoned", ErrWrong)
	}
	return nil
}

func (c *classTimes) Time(_ Weight, _ int, cand Candidate, _ int) (Timing, error) {
	switch {
	case c.cat.Kernel(cand.Kernel).ReductionClass == c.fast && cand.SplitK == c.fastSplit:
		return Timing{Median: 5, P90: 6}, nil
	case c.cat.Kernel(cand.Kernel).ReductionClass == c.fast:
		return Timing{Median: 10, P90: 11}, nil
	}
	return Timing{Median: 20, P90: 21}, nil
}

// committedO is the catalog, a planner of the committed table on the H200
// and Llama-3-8B's o weight in bf16.
func committedO(t *testing.T) (*kernels.Catalog, *dispatch.Planner, Weight) {
	t.Helper()
	cat, err := dispatch.DefaultCatalog()
	require.NoError(t, err)
	table, err := dispatch.DefaultTable()
	require.NoError(t, err)
	return cat, dispatch.NewPlanner(cat, table, dispatch.H200, dispatch.Limits{}),
		Weight{Name: "o", Types: dispatch.Types{In: dispatch.BF16, Out: dispatch.BF16}, N: 4096, K: 4096}
}

// The class of least worst slowdown against the normal table wins, with
// the slowdown recorded as measured; a class the gate fails at some M is
// out; a measurer's other error stops the choice.
func TestChooseInvariant(t *testing.T) {
	cat, pl, w := committedO(t)
	ms := []int{1, 16, 256, 4096}

	// what the normal table runs at each M, by class: the measurer's time
	// for it is 10 in the fast class, else 20
	normal := map[int]string{}
	for _, mm := range ms {
		p := dispatch.PlaceholderProblem(mm, w.N, w.K, w.Types)
		plan, err := pl.Plan(&p)
		require.NoError(t, err)
		normal[mm] = plan.Kernel.ReductionClass
	}
	worst := 0.0 // the fast class (10) against the normal table's kernel
	for _, c := range normal {
		worst = max(worst, map[bool]float64{true: 1, false: 0.5}[c == "wgmma16.seq"])
	}

	m := &classTimes{cat: cat, fast: "wgmma16.seq"}
	inv, err := ChooseInvariant(m, pl, w, ms, 20)
	require.NoError(t, err)
	assert.Equal(t, "wgmma16.seq", inv.Class)
	assert.Equal(t, dispatch.SourceMeasured, inv.Source)
	assert.Equal(t, dispatch.H200.Name, inv.Device)
	assert.InDelta(t, worst, inv.WorstSlowdown, 1e-9, "the fast class against the normal table's kernels %v", normal)

	require.NotEmpty(t, normal[256], "M = 256 runs a kernel of a class")
	m = &classTimes{cat: cat, fast: normal[256], wrong: normal[256]}
	inv, err = ChooseInvariant(m, pl, w, ms, 20)
	require.ErrorIs(t, err, ErrWrong, "the normal table's own kernel at M = 256 fails the gate")
	assert.Empty(t, inv.Class)

	m = &classTimes{cat: cat, fast: "wgmma16.nacc2", wrong: "wgmma16.nacc2"} // the fastest, were it right (the normal table runs none)
	inv, err = ChooseInvariant(m, pl, w, ms, 20)
	require.NoError(t, err)
	assert.NotEqual(t, "wgmma16.nacc2", inv.Class)
	assert.InDelta(t, 1.0, inv.WorstSlowdown, 1e-9)

	// a class faster at split-K 2 wins with its split, also where M = 4096's
	// workspace partials (128 MiB) do not fit: a kernel of the class that
	// sums its parts itself serves that M (PlanClass admits it, gated)
	m = &classTimes{cat: cat, fast: "wgmma16.seq", fastSplit: 2}
	inv, err = ChooseInvariant(m, pl, w, []int{1, 16, 256}, 20)
	require.NoError(t, err)
	assert.Equal(t, [2]any{"wgmma16.seq", 2}, [2]any{inv.Class, inv.SplitK})
	inv, err = ChooseInvariant(m, pl, w, ms, 20)
	require.NoError(t, err)
	assert.Equal(t, [2]any{"wgmma16.seq", 2}, [2]any{inv.Class, inv.SplitK}, "M = 4096 at split-K 2: ws_wgmma_ks_ts")
	big := dispatch.PlaceholderProblem(4096, w.N, w.K, w.Types)
	plan, err := pl.PlanClass(&big, "wgmma16.seq", 2)
	require.NoError(t, err)
	assert.True(t, plan.Kernel.SplitFixed(), plan.Kernel.Name)
	assert.Contains(t, inv.Kernels, plan.Kernel.Name, "the experimental kernel that ran and passed the gate is recorded")
	for _, n := range inv.Kernels {
		assert.True(t, cat.Kernel(n).Experimental, "%s: only experimental kernels are listed", n)
	}

	_, err = ChooseInvariant(failing{}, pl, w, ms, 20)
	require.ErrorIs(t, err, errDevice)
}

var errDevice = errors.New("device lost")

// failing is a Measurer whose every check fails with a device error.
type failing struct{ idle }

func (failing) Check(Weight, int, Candidate) error { return errDevice }

// Invariants records the measured class in the exact entry of every tuned
// weight the table holds and, chosen over those weights together, in the
// default entry of their types; it leaves the weights it has no exact entry
// for alone, and passes a measurer's error on.
func TestInvariants(t *testing.T) {
	cat, err := dispatch.DefaultCatalog()
	require.NoError(t, err)
	base, err := dispatch.DefaultTable()
	require.NoError(t, err)
	table := base.Clone()
	bf16 := dispatch.Types{In: dispatch.BF16, Out: dispatch.BF16}
	o := Weight{Name: "o", Types: bf16, N: 4096, K: 4096}
	baseExact, _ := base.Find(dispatch.H200.Arch, bf16, o.N, o.K)
	require.NotNil(t, baseExact)
	var was *dispatch.Invariant // the committed table's class for o (measured on an H100), if any
	if baseExact.Invariant != nil {
		c := *baseExact.Invariant
		was = &c
	}
	untuned := Weight{Name: "untuned", Types: bf16, N: 1234 * 8, K: 4096}
	cfg := DefaultConfig(cat, []Weight{o, untuned})
	cfg.MaxM = 256
	left, err := Invariants(&cfg, &classTimes{cat: cat, fast: "wgmma16.seq"}, table, time.Time{})
	require.NoError(t, err)
	assert.Empty(t, left)
	exact, def := table.Find(dispatch.H200.Arch, bf16, o.N, o.K)
	require.NotNil(t, exact)
	require.NotNil(t, exact.Invariant, "the tuned weight's entry records its class")
	assert.Equal(t, "wgmma16.seq", exact.Invariant.Class)
	assert.Equal(t, dispatch.SourceMeasured, exact.Invariant.Source)
	require.NotNil(t, def)
	require.NotNil(t, def.Invariant, "the default entry records the class chosen over the tuned weights")
	assert.Equal(t, "wgmma16.seq", def.Invariant.Class)
	assert.Equal(t, dispatch.SourceMeasured, def.Invariant.Source)
	none, _ := table.Find(dispatch.H200.Arch, bf16, untuned.N, untuned.K)
	assert.Nil(t, none, "no entry made for a weight the table lacks")
	assert.Equal(t, was, baseExact.Invariant, "the table it was cloned from is untouched")

	_, err = Invariants(&cfg, failing{}, base.Clone(), time.Time{})
	require.ErrorIs(t, err, errDevice)
	assert.Contains(t, err.Error(), "the batch-invariant class of o")

	// past its stop it starts no weight: the one it left is named, and the
	// entries keep their classes
	late := base.Clone()
	left, err = Invariants(&cfg, failing{}, late, time.Now().Add(-time.Second))
	require.NoError(t, err, "no weight started, so the measurer's error never came")
	assert.Equal(t, []string{"o"}, left)
	lateExact, lateDef := late.Find(dispatch.H200.Arch, bf16, o.N, o.K)
	assert.Equal(t, was, lateExact.Invariant)
	assert.Nil(t, lateDef.Invariant, "no default chosen over no weight")
}

// Pooled, the weights' samples choose the class and split of least worst
// slowdown over all of them — not either weight's own choice — and a class
// one weight could not run is out for all.
func TestPooledClassChoice(t *testing.T) {
	keys := map[string]classAt{"x": {"x", 1}, "y@2": {"y", 2}, "z": {"z", 1}}
	a := classSamples{normal: []float64{10, 10}, keys: keys,
		byClass: map[string][]float64{"x": {10, 20}, "y@2": {15, 15}, "z": {10, 10}}}
	b := classSamples{normal: []float64{10, 10}, keys: keys,
		byClass: map[string][]float64{"x": {10, 10}, "y@2": {30, 10}, "z": {10, 0}}}
	dev := dispatch.H200
	for _, c := range []struct {
		s     classSamples
		class string
		split int
		worst float64
	}{
		{a, "z", 0, 1}, // a alone: z runs every M at the normal mode's speed
		{b, "x", 0, 1}, // b alone: z did not run its second M
		{pool([]classSamples{a, b}), "x", 0, 2},
		{pool([]classSamples{b}), "x", 0, 1},
	} {
		inv, ok := c.s.choose(dev)
		require.True(t, ok)
		assert.Equal(t, [3]any{c.class, c.split, c.worst}, [3]any{inv.Class, inv.SplitK, inv.WorstSlowdown})
	}
	p := pool([]classSamples{a, b})
	assert.Equal(t, []float64{10, 20, 10, 10}, p.byClass["x"])
	assert.Equal(t, []float64{10, 10, 10, 0}, p.byClass["z"], "b's failed sample stays 0: z is out")
	onlyA := classSamples{normal: []float64{10}, keys: map[string]classAt{"w": {"w", 1}}, byClass: map[string][]float64{"w": {10}}}
	p = pool([]classSamples{onlyA, {normal: []float64{10}, keys: map[string]classAt{}, byClass: map[string][]float64{}}})
	assert.Equal(t, []float64{10, 0}, p.byClass["w"], "a class the other weight never planned is out too")
	_, ok := p.choose(dev)
	assert.False(t, ok)
}

// capTimes is a Measurer whose time for a kernel is its class's: 10 for
// wgmma16.seq, 20 for the rest, but the fma.v8.w8 class takes 5 below M =
// 16 and 1000 from there on; it counts that class's timings by M.
type capTimes struct {
	idle
	cat   *kernels.Catalog
	fmaAt map[int]int
}

func (c *capTimes) Check(Weight, int, Candidate) error { return nil }

func (c *capTimes) Time(_ Weight, m int, cand Candidate, _ int) (Timing, error) {
	switch c.cat.Kernel(cand.Kernel).ReductionClass {
	case "wgmma16.seq":
		return Timing{Median: 10}, nil
	case "fma.v8.w8":
		c.fmaAt[m]++
		if m >= 16 {
			return Timing{Median: 1000}, nil
		}
		return Timing{Median: 5}, nil
	}
	return Timing{Median: 20}, nil
}

// A class more than invariantCap times slower than the normal mode at some
// M is out at once: its samples are cleared and its larger Ms never timed
// (the decode classes' timings at M = 4096 took seconds each).
func TestInvariantCapStopsHopelessClasses(t *testing.T) {
	cat, pl, w := committedO(t)
	ms := []int{1, 4, 16, 64, 256, 4096}
	m := &capTimes{cat: cat, fmaAt: map[int]int{}}
	s, err := measureClasses(m, pl, w, ms, 20)
	require.NoError(t, err)
	require.Positive(t, m.fmaAt[1], "fma.v8.w8 runs at M = 1")
	require.Positive(t, m.fmaAt[16], "and is timed where it first falls behind")
	for _, mm := range []int{64, 256, 4096} {
		assert.Zero(t, m.fmaAt[mm], "M = %d: timed after it was out", mm)
	}
	for _, key := range []string{"fma.v8.w8", "fma.v8.w8@2", "fma.v8.w8@4"} {
		assert.Equal(t, make([]float64, len(ms)), s.byClass[key], "%s: every sample cleared", key)
	}
	inv, ok := s.choose(m.Device())
	require.True(t, ok)
	assert.NotEqual(t, "fma.v8.w8", inv.Class)
}
