package dispatch

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gemmroute/gemmroute/kernels"
)

// invariantMs are the batch sizes of issue 21's GPU test.
var invariantMs = []int{1, 2, 7, 16, 33, 100, 257, 1024, 4096}

// In the batch-invariant mode every M of a weight plans a kernel of one
// reduction class at one split-K — the table's split where its exact entry
// records a class (Llama-3-8B's o and down: 2, measured), else 1 — and
// Explain names the mode and the class; the weights tuned, untuned, and odd.
func TestBatchInvariantOneClassPerWeight(t *testing.T) {
	cat, err := DefaultCatalog()
	require.NoError(t, err)
	table, err := DefaultTable()
	require.NoError(t, err)
	pl := NewPlanner(cat, table, H200, Limits{BatchInvariant: true})
	for _, types := range []Types{{In: BF16, Out: BF16}, {In: F16, Out: F16}, {In: E4M3, Out: BF16}, {In: E4M3, Out: BF16, Scaling: ScalingRow}} {
		for _, w := range [][2]int{{6144, 4096}, {4096, 4096}, {28672, 4096}, {4096, 14336}, {5120, 13824}, {769, 5125}} {
			if types.In == E4M3 && w[1]%16 != 0 {
				continue
			}
			class, split := "", 1
			if e, _ := table.Find(SM90, types, w[0], w[1]); e != nil && e.Invariant != nil {
				split = max(e.Invariant.SplitK, 1)
			}
			for _, m := range invariantMs {
				p := PlaceholderProblem(m, w[0], w[1], types)
				plan, err := pl.Plan(&p)
				require.NoError(t, err, "%s %v M=%d", types, w, m)
				require.NotEmpty(t, plan.Kernel.ReductionClass, "%s %v M=%d: %s", types, w, m, plan.Kernel.Name)
				if class == "" {
					class = plan.Kernel.ReductionClass
				}
				assert.Equal(t, class, plan.Kernel.ReductionClass, "%s %v M=%d: %s", types, w, m, plan.Kernel.Name)
				assert.Equal(t, split, plan.SplitK, "%s %v M=%d", types, w, m)
				assert.Contains(t, plan.Explain(), "mode: batch-invariant, reduction class "+class)
			}
		}
	}
}

// A table's class at a split-K routes every M of its weight to kernels of
// the class at that split over the same K offsets (the class's step: a
// kernel whose TileK rounds K per split otherwise is passed over), and
// Explain says the split. Where the workspace split-K's M·N·S partials do
// not fit, a measured entry's route is a kernel that sums its parts itself
// (experimental: the tuner gated it when it measured the class, and the
// entry lists it); a measured entry that does not list it, and the model's
// choice at the same split, admit no such kernel, so there planning fails
// rather than change the split.
func TestBatchInvariantTableSplit(t *testing.T) {
	cat, err := DefaultCatalog()
	require.NoError(t, err)
	bf16 := Types{In: BF16, Out: BF16}
	for _, w := range [][3]int{{4096, 4096, 2}, {4096, 14336, 3}} {
		for _, c := range []struct {
			source string
			gated  bool // the entry lists the split-fixed kernels its tune ran
		}{{SourceMeasured, true}, {SourceMeasured, false}, {SourceModel, false}} {
			source := c.source
			inv := &Invariant{Class: "wgmma16.seq", Source: source, Device: "NVIDIA H200", Date: "2026-12-07", SplitK: w[2]}
			if source == SourceMeasured {
				inv.WorstSlowdown = 1.1
			}
			if c.gated {
				inv.Kernels = splitFixedKernels(cat, bf16)
			}
			table := &Table{Schema: TableSchema, Entries: []Entry{
				{Arch: SM90, Types: bf16, Layout: "tn", N: w[0], K: w[1], Buckets: []Bucket{{MinM: 1, Kernel: "x", SplitK: 1}}, Invariant: inv},
			}}
			pl := NewPlanner(cat, table, H200, Limits{BatchInvariant: true, WorkspaceBytes: DefaultWorkspaceBytes})
			what := fmt.Sprintf("%v %s gated %t", w, source, c.gated)
			kps, fixed, refused := 0, 0, 0
			for _, m := range invariantMs {
				p := PlaceholderProblem(m, w[0], w[1], bf16)
				partialsFit := int64(m)*int64(w[0])*int64(w[2])*4 <= int64(DefaultWorkspaceBytes)/2
				plan, err := pl.Plan(&p)
				if err != nil {
					require.ErrorIs(t, err, ErrNoKernel, "%s M=%d", what, m)
					require.False(t, c.gated, "%s M=%d: a class whose tune gated its split-fixed kernels refused", what, m)
					require.False(t, partialsFit, "%s M=%d: refused where the partials fit", what, m)
					refused++
					continue
				}
				assert.Equal(t, "wgmma16.seq", plan.Kernel.ReductionClass, "%s M=%d", what, m)
				assert.Equal(t, w[2], plan.SplitK, "%s M=%d", what, m)
				if plan.Kernel.SplitFixed() {
					assert.True(t, c.gated, "%s M=%d: an experimental kernel no tune gated was routed", what, m)
					fixed++
				}
				if kps == 0 {
					kps = plan.kPerSplit
				}
				assert.Equal(t, kps, plan.kPerSplit, "%s M=%d: %s splits K elsewhere", what, m, plan.Kernel.Name)
				assert.Equal(t, kPerSplit(w[1], w[2], 64), plan.kPerSplit, "%s M=%d", what, m)
				if source == SourceMeasured {
					assert.Contains(t, plan.Explain(), "reduction class wgmma16.seq (measured on NVIDIA H200 (2026-12-07), worst slowdown ×1.10 against the normal mode); split-K "+fmt.Sprint(w[2])+" at every M")
				}
			}
			if c.gated {
				assert.Zero(t, refused, what)
				assert.Positive(t, fixed, "%s: M = 4096's partials cannot fit 32 MiB", what)
			} else {
				assert.Positive(t, refused, "%s: M = 4096's partials cannot fit 32 MiB", what)
			}
		}
	}
}

// The default entry's class (chosen over the tuned weights together)
// routes every M of a weight no entry names, at its split where that serves
// the weight at every M, else the same class without a split (N = 768,
// K = 8: one k-tile, no split), else the model's choice (N = 769, K =
// 5125: only the repack kernels read such a K, and the tune gated none),
// and Explain says which; the choice is the weight's, the same at every M.
func TestBatchInvariantDefaultClass(t *testing.T) {
	cat, err := DefaultCatalog()
	require.NoError(t, err)
	bf16 := Types{In: BF16, Out: BF16}
	table := &Table{Schema: TableSchema, Entries: []Entry{
		{Arch: SM90, Types: bf16, Layout: "tn", Buckets: []Bucket{{MinM: 1, Kernel: "x", SplitK: 1}},
			Invariant: &Invariant{Class: "wgmma16.seq", Source: SourceMeasured, Device: "NVIDIA H100 80GB HBM3", Date: "2026-12-08", WorstSlowdown: 1.4, SplitK: 2,
				Kernels: splitFixedKernels(cat, bf16)}},
	}}
	pl := NewPlanner(cat, table, H100, Limits{BatchInvariant: true, WorkspaceBytes: DefaultWorkspaceBytes})
	for _, w := range []struct {
		n, k, split int // split 0: the model's choice
	}{{5120, 13824, 2}, {4096, 1024, 2}, {768, 8, 1}, {769, 5125, 0}} {
		for _, m := range invariantMs {
			p := PlaceholderProblem(m, w.n, w.k, bf16)
			plan, err := pl.Plan(&p)
			require.NoError(t, err, "%v M=%d", w, m)
			what := fmt.Sprintf("%v M=%d: %s", w, m, plan.Kernel.Name)
			ex := plan.Explain()
			if w.split == 0 {
				assert.Equal(t, LevelHeuristic, plan.Level, what)
				assert.Contains(t, ex, "default entry: reduction class wgmma16.seq at split-K 2, which no kernel serves", what)
				continue
			}
			assert.Equal(t, "wgmma16.seq", plan.Kernel.ReductionClass, what)
			assert.Equal(t, w.split, plan.SplitK, what)
			assert.Equal(t, LevelDefault, plan.Level, what)
			assert.Contains(t, ex, "reduction class wgmma16.seq (measured on NVIDIA H100 80GB HBM3 (2026-12-08), worst slowdown ×1.40 against the normal mode", what)
			if w.split == 1 {
				assert.Contains(t, ex, "here without its split-K 2, which does not serve this weight", what)
			} else {
				assert.NotContains(t, ex, "without its split-K", what)
			}
		}
	}
	assert.Len(t, pl.classes, 4, "one class decision a weight, whatever its M")
}

// A table's class routes every M of its weight (measured, with its
// provenance in Explain); a class the catalog lacks is passed over with a
// note for the default entry's; the normal mode ignores both.
func TestBatchInvariantTableClass(t *testing.T) {
	cat, err := DefaultCatalog()
	require.NoError(t, err)
	bf16 := Types{In: BF16, Out: BF16}
	table := &Table{Schema: TableSchema, Entries: []Entry{
		{Arch: SM90, Types: bf16, Layout: "tn", N: 4096, K: 4096, Buckets: []Bucket{{MinM: 1, Kernel: "x", SplitK: 1}},
			Invariant: &Invariant{Class: "mma16.seq", Source: SourceMeasured, Device: "NVIDIA H200", Date: "2026-12-02", WorstSlowdown: 1.5}},
		{Arch: SM90, Types: bf16, Layout: "tn", N: 6144, K: 4096, Buckets: []Bucket{{MinM: 1, Kernel: "x", SplitK: 1}},
			Invariant: &Invariant{Class: "gone.class", Source: SourceMeasured}},
		{Arch: SM90, Types: bf16, Layout: "tn", Buckets: []Bucket{{MinM: 1, Kernel: "x", SplitK: 1}},
			Invariant: &Invariant{Class: "wgmma16.nacc4", Source: SourceModel}},
	}}
	pl := NewPlanner(cat, table, H200, Limits{BatchInvariant: true})
	for _, m := range invariantMs {
		p := PlaceholderProblem(m, 4096, 4096, bf16)
		plan, err := pl.Plan(&p)
		require.NoError(t, err)
		assert.Equal(t, "mma16.seq", plan.Kernel.ReductionClass, "M=%d", m)
		assert.Equal(t, LevelExact, plan.Level)
		assert.Contains(t, plan.Explain(), "reduction class mma16.seq (measured on NVIDIA H200 (2026-12-02), worst slowdown ×1.50")

		p = PlaceholderProblem(m, 6144, 4096, bf16)
		plan, err = pl.Plan(&p)
		require.NoError(t, err)
		assert.Equal(t, "wgmma16.nacc4", plan.Kernel.ReductionClass, "M=%d", m)
		assert.Equal(t, LevelDefault, plan.Level)
		assert.Contains(t, plan.Explain(), "reduction class gone.class, which no kernel of the catalog")
	}
	normal := NewPlanner(cat, table, H200, Limits{})
	p := PlaceholderProblem(4096, 4096, 4096, bf16)
	plan, err := normal.Plan(&p)
	require.NoError(t, err)
	assert.NotContains(t, plan.Explain(), "batch-invariant")
}

// A stream being captured without a workspace (NoSplitK) gets the class
// the other streams get.
func TestBatchInvariantClassIgnoresCapture(t *testing.T) {
	cat, err := DefaultCatalog()
	require.NoError(t, err)
	free := NewPlanner(cat, nil, H200, Limits{BatchInvariant: true})
	capt := NewPlanner(cat, nil, H200, Limits{BatchInvariant: true, NoSplitK: true})
	for _, m := range invariantMs {
		p := PlaceholderProblem(m, 4096, 14336, Types{In: BF16, Out: BF16})
		a, err := free.Plan(&p)
		require.NoError(t, err)
		b, err := capt.Plan(&p)
		require.NoError(t, err)
		assert.Equal(t, a.Kernel.ReductionClass, b.Kernel.ReductionClass, "M=%d", m)
	}
}

// PlanClass plans in the class it is given, and refuses a malformed class
// and one no kernel of the types has, naming the argument and the rule.
func TestPlanClass(t *testing.T) {
	cat, err := DefaultCatalog()
	require.NoError(t, err)
	pl := NewPlanner(cat, nil, H200, Limits{})
	p := PlaceholderProblem(300, 4096, 4096, Types{In: BF16, Out: BF16})
	plan, err := pl.PlanClass(&p, "wgmma16.nacc2", 1)
	require.NoError(t, err)
	assert.Equal(t, "wgmma16.nacc2", plan.Kernel.ReductionClass)
	assert.Equal(t, LevelForced, plan.Level)
	for _, c := range []struct{ class, rule string }{
		{"Bad Class", "a reduction class is"},
		{"wgmma32.p128.nacc4", "no kernel of the catalog computes bf16 on sm_90 in this reduction class: use one of"},
	} {
		_, err := pl.PlanClass(&p, c.class, 1)
		var arg *ArgError
		require.ErrorAs(t, err, &arg, c.class)
		require.ErrorIs(t, err, ErrInvalidArgument)
		assert.Equal(t, "class", arg.Field)
		assert.Contains(t, arg.Rule, c.rule)
	}
	plan, err = pl.PlanClass(&p, "wgmma16.seq", 2)
	require.NoError(t, err)
	assert.Equal(t, [2]any{"wgmma16.seq", 2}, [2]any{plan.Kernel.ReductionClass, plan.SplitK})
	// where the workspace split-K's partials do not fit (4096·14336·2·4 B),
	// a kernel that sums its parts itself: the tuner measures it so, gated
	big := PlaceholderProblem(4096, 14336, 4096, Types{In: BF16, Out: BF16})
	plan, err = pl.PlanClass(&big, "wgmma16.seq", 2)
	require.NoError(t, err)
	assert.True(t, plan.Kernel.SplitFixed() && plan.Kernel.Experimental, plan.Kernel.Name)
	assert.Equal(t, [2]any{"wgmma16.seq", 2}, [2]any{plan.Kernel.ReductionClass, plan.SplitK})
	for _, s := range []int{0, kernels.MaxSplitK + 1} {
		_, err := pl.PlanClass(&p, "wgmma16.seq", s)
		var arg *ArgError
		require.ErrorAs(t, err, &arg, "split %d", s)
		assert.Equal(t, "split", arg.Field)
	}
}

// ChooseClass takes the class of least worst slowdown, not of least total
// time; a class missing a sample is out; ties go to the least total.
func TestChooseClass(t *testing.T) {
	inf := math.Inf(1)
	normal := []float64{10, 20, 100}
	c, worst := ChooseClass(normal, map[string][]float64{
		"fast.mostly": {10, 20, 200}, // ×2 at the last sample
		"even":        {13, 26, 130}, // ×1.3 everywhere
		"gappy":       {10, inf, 100},
	})
	assert.Equal(t, "even", c)
	assert.InDelta(t, 1.3, worst, 1e-12)
	c, _ = ChooseClass(normal, map[string][]float64{"a": {13, 26, 130}, "b": {13, 20, 100}})
	assert.Equal(t, "b", c, "equal worst: the least total")
	c, worst = ChooseClass(normal, map[string][]float64{"gappy": {10, 0, 100}})
	assert.Empty(t, c)
	assert.True(t, math.IsInf(worst, 1))
}

// An entry's invariant choice saves and loads back; a malformed class, an
// unknown source and a model choice with a measurement are refused with
// their line and the rule.
func TestLoadTableInvariant(t *testing.T) {
	cat, err := DefaultCatalog()
	require.NoError(t, err)
	k := cat.Kernel("gemmroute_sm90_decode_fma_bf16_bf16_f32_tn_1x2x256_w8_u4_a16")
	require.NotNil(t, k)
	table := &Table{Schema: TableSchema, Provenance: Provenance{Source: "measured"}, Entries: []Entry{
		{Arch: SM90, Types: Types{In: BF16, Out: BF16}, Layout: "tn", N: 4096, K: 4096,
			Buckets: []Bucket{{MinM: 1, Kernel: k.Name, Digest: k.Digest, SplitK: 1}},
			Invariant: &Invariant{Class: "fma.v8.w8", Source: SourceMeasured, Device: "NVIDIA H200", Date: "2026-12-02", WorstSlowdown: 1.25, SplitK: 2,
				Kernels: []string{"gemmroute_sm90_ws_wgmma_ks_ts_bf16_bf16_f32_tn_128x128x64_w12_s6_a16"}}},
	}}
	data, err := table.Marshal()
	require.NoError(t, err)
	back, err := LoadTable("t.yaml", data, cat)
	require.NoError(t, err)
	assert.Equal(t, table.Entries[0].Invariant, back.Entries[0].Invariant, "the gated kernels come back too")
	for _, c := range []struct{ edit func(*Invariant) }{
		{func(inv *Invariant) { inv.Class = "FMA" }},
		{func(inv *Invariant) { inv.Source = "guess" }},
		{func(inv *Invariant) { inv.Source = SourceModel }},
		{func(inv *Invariant) { inv.Source, inv.WorstSlowdown = SourceModel, 0 }}, // kernels: only a tune gates
		{func(inv *Invariant) { inv.SplitK = kernels.MaxSplitK + 1 }},
		{func(inv *Invariant) { inv.SplitK = -1 }},
	} {
		bad := table.Clone()
		c.edit(bad.Entries[0].Invariant)
		data, err := bad.Marshal()
		require.NoError(t, err)
		_, err = LoadTable("t.yaml", data, cat)
		require.ErrorIs(t, err, ErrTable)
		assert.Contains(t, err.Error(), "invariant:")
	}
}

// splitFixedKernels are the catalog's kernels of types that sum their
// split-K parts themselves (experimental: a tune lists the ones it gated).
func splitFixedKernels(cat *kernels.Catalog, types Types) []string {
	var out []string
	for _, k := range cat.Kernels() {
		if k.SplitFixed() && k.In == types.In && k.Out == types.Out {
			out = append(out, k.Name)
		}
	}
	return out
}
