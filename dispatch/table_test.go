package dispatch

import (
	"math"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gemmroute/gemmroute/kernels"
)

func TestEntryKeyFindAndRoute(t *testing.T) {
	def := Entry{Arch: SM90, Types: Types{In: BF16, Out: BF16}, Layout: kernels.LayoutTN, Buckets: []Bucket{{MinM: 1, MaxM: 16, Kernel: "small"}, {MinM: 17, Kernel: "big"}}}
	exact := Entry{Arch: SM90, Types: Types{In: BF16, Out: BF16}, Layout: kernels.LayoutTN, N: 8, K: 16, Buckets: []Bucket{{MinM: 1, Kernel: "exact"}}}
	tab := &Table{Entries: []Entry{def, exact}}
	assert.Equal(t, "sm_90 bf16 default", def.Key().String())
	assert.Equal(t, "sm_90 bf16 N=8 K=16", exact.Key().String())
	assert.Equal(t, "sm_80 f16 nn N=1 K=2", EntryKey{SM80, Types{In: F16, Out: F16}, "nn", 1, 2}.String())

	e, d := tab.Find(SM90, Types{In: BF16, Out: BF16}, 8, 16)
	require.Same(t, &tab.Entries[1], e)
	require.Same(t, &tab.Entries[0], d)
	e, d = tab.Find(SM90, Types{In: BF16, Out: BF16}, 0, 0)
	assert.Nil(t, e, "the default entry is not an exact one")
	assert.Same(t, &tab.Entries[0], d)
	e, d = (*Table)(nil).Find(SM90, Types{In: BF16, Out: BF16}, 8, 16)
	assert.Nil(t, e)
	assert.Nil(t, d)

	assert.Equal(t, "big", tab.Route(def.Key(), 17).Kernel)
	assert.Equal(t, "small", tab.Route(def.Key(), 16).Kernel)
	assert.Equal(t, "exact", tab.Route(exact.Key(), 100).Kernel)
	assert.Nil(t, tab.Route(def.Key(), 0))
	assert.Nil(t, tab.Route(EntryKey{SM80, Types{In: BF16, Out: BF16}, kernels.LayoutTN, 0, 0}, 1))
}

func TestMergeKeepsOtherEntries(t *testing.T) {
	base := &Table{Provenance: Provenance{Source: "old"}, Entries: []Entry{
		{Arch: SM80, Types: Types{In: BF16, Out: BF16}, Layout: "tn", Buckets: []Bucket{{MinM: 1, Kernel: "old80"}}},
		{Arch: SM90, Types: Types{In: BF16, Out: BF16}, Layout: "tn", Buckets: []Bucket{{MinM: 1, Kernel: "old90"}}},
	}}
	fresh := []Entry{{Arch: SM90, Types: Types{In: BF16, Out: BF16}, Layout: "tn", Buckets: []Bucket{{MinM: 1, Kernel: "new90"}}}}
	got, kept, err := base.Merge(Provenance{Source: "measured"}, fresh, false)
	require.NoError(t, err)
	assert.Empty(t, kept)
	assert.Equal(t, "measured", got.Provenance.Source)
	require.Len(t, got.Entries, 2)
	assert.Equal(t, "old80", got.Entries[0].Buckets[0].Kernel)
	assert.Equal(t, "new90", got.Entries[1].Buckets[0].Kernel)
	assert.Equal(t, "old90", base.Entries[1].Buckets[0].Kernel, "the base is not changed")
}

// The model's entries never replace measured ones unless asked to.
func TestMergeKeepsMeasuredEntries(t *testing.T) {
	measured := Entry{Arch: SM90, Types: Types{In: BF16, Out: BF16}, Layout: "tn", N: 4096, K: 14336, Source: SourceMeasured, Device: "NVIDIA H200",
		Buckets: []Bucket{{MinM: 1, Kernel: "timed", TimesUS: map[int]float64{1: 30}}}}
	model := Entry{Arch: SM90, Types: Types{In: BF16, Out: BF16}, Layout: "tn", N: 4096, K: 14336, Source: SourceModel,
		Buckets: []Bucket{{MinM: 1, Kernel: "guess"}}}
	other := Entry{Arch: SM80, Types: Types{In: BF16, Out: BF16}, Layout: "tn", Source: SourceModel, Buckets: []Bucket{{MinM: 1, Kernel: "guess80"}}}
	base := &Table{Entries: []Entry{measured}}
	got, kept, err := base.Merge(Provenance{Source: "measured"}, []Entry{model, other}, false)
	require.NoError(t, err)
	assert.Equal(t, []EntryKey{model.Key()}, kept)
	require.Len(t, got.Entries, 2)
	assert.Equal(t, "timed", got.Entry(measured.Key()).Buckets[0].Kernel, "the measured entry stays")
	assert.Equal(t, "guess80", got.Entry(other.Key()).Buckets[0].Kernel, "a new key is added")
	got, kept, err = base.Merge(Provenance{Source: "measured"}, []Entry{model}, true)
	require.NoError(t, err)
	assert.Empty(t, kept)
	assert.Equal(t, "guess", got.Entry(measured.Key()).Buckets[0].Kernel, "replaceMeasured replaces")
	fresh := measured
	fresh.Buckets = []Bucket{{MinM: 1, Kernel: "retimed", TimesUS: map[int]float64{1: 29}}}
	got, _, err = base.Merge(Provenance{Source: "measured"}, []Entry{fresh}, false)
	require.NoError(t, err)
	assert.Equal(t, "retimed", got.Entry(measured.Key()).Buckets[0].Kernel, "a new measurement replaces an old one")
}

// Merge's result is a deep copy: stripping it leaves the base and fresh
// entries as they were (it shared their buckets). Two fresh entries with
// one key are refused (the table they made failed to load); a nil base
// merges as an empty table, and a nil table neither merges nor marshals
// by panicking.
func TestMergeCopiesAndRefusesDuplicates(t *testing.T) {
	timed := func(kernel string) Entry {
		return Entry{Arch: SM90, Types: Types{In: BF16, Out: BF16}, Layout: "tn", Source: SourceMeasured,
			Buckets: []Bucket{{MinM: 1, Kernel: kernel, SplitK: 1, TimesUS: map[int]float64{1: 3}, RunnerUp: "r"}}}
	}
	base := &Table{Provenance: Provenance{Source: "measured"}, Entries: []Entry{timed("old90")}}
	other := timed("new80")
	other.Arch = SM80
	fresh := []Entry{other}
	got, _, err := base.Merge(base.Provenance, fresh, true)
	require.NoError(t, err)
	for i := range got.Entries {
		got.Entries[i].MarkModel("d", "today")
		got.Entries[i].Buckets[0].Kernel = "edited"
	}
	assert.Equal(t, timed("old90"), base.Entries[0], "the base is not changed")
	assert.Equal(t, map[int]float64{1: 3}, fresh[0].Buckets[0].TimesUS, "fresh is not changed")
	assert.Equal(t, "new80", fresh[0].Buckets[0].Kernel)

	_, _, err = base.Merge(base.Provenance, []Entry{timed("a"), other, timed("b")}, true)
	var ae *ArgError
	require.ErrorAs(t, err, &ae)
	assert.ErrorIs(t, err, ErrInvalidArgument)
	assert.ErrorContains(t, err, "two entries with this key")

	got, kept, err := (*Table)(nil).Merge(Provenance{Source: "measured"}, fresh, false)
	require.NoError(t, err)
	assert.Empty(t, kept)
	require.Len(t, got.Entries, 1)
	_, err = (*Table)(nil).Marshal()
	assert.ErrorIs(t, err, ErrInvalidArgument)
	assert.Nil(t, (*Table)(nil).Clone())
}

// DefaultTable hands each caller its own copy: one caller's edit changes
// neither another's table nor the routes of a planner made before it.
func TestDefaultTableIsNotShared(t *testing.T) {
	cat, err := DefaultCatalog()
	require.NoError(t, err)
	a, err := DefaultTable()
	require.NoError(t, err)
	pl := NewPlanner(cat, a, H200, Limits{})
	p := testProblem(16, 4096, 4096)
	before, err := pl.Plan(&p)
	require.NoError(t, err)
	require.Equal(t, LevelExact, before.Level, "the embedded table has an exact entry for 4096×4096")
	want := a.Entries[0].Buckets[0]
	for i := range a.Entries {
		for j := range a.Entries[i].Buckets {
			a.Entries[i].Buckets[j].Kernel = "edited"
			a.Entries[i].Buckets[j].TimesUS = nil
		}
	}
	a.Entries = a.Entries[:1]
	b, err := DefaultTable()
	require.NoError(t, err)
	assert.Equal(t, want, b.Entries[0].Buckets[0])
	assert.Greater(t, len(b.Entries), 1)
	after, err := NewPlanner(cat, b, H200, Limits{}).Plan(&p)
	require.NoError(t, err)
	assert.Equal(t, before.Kernel.Name, after.Kernel.Name)
	p.M = 200 // not in the planner's cache
	want200, err := NewPlanner(cat, b, H200, Limits{}).Plan(&p)
	require.NoError(t, err)
	got200, err := pl.Plan(&p)
	require.NoError(t, err, "the planner routes by its own copy")
	assert.Equal(t, want200.Kernel.Name, got200.Kernel.Name, "the planner routes by its own copy")
}

// MarkModel strips what only a measurement may say from the model's own
// buckets, and keeps a bucket kept from another entry (stamped) as measured,
// with its times and its own device and date.
func TestMarkModel(t *testing.T) {
	kept := Bucket{MinM: 2, Kernel: "m", SplitK: 1, TimesUS: map[int]float64{2: 5}, RunnerUp: "r2", MarginPct: 3,
		Source: SourceMeasured, Device: "H100", Date: "2026-12-07"}
	e := Entry{Source: SourceMeasured, Device: "H100", Date: "2026-12-07", Buckets: []Bucket{
		{MinM: 1, MaxM: 1, Kernel: "k", SplitK: 2, TimesUS: map[int]float64{1: 3}, RunnerUp: "r", MarginPct: 4}, kept}}
	e.MarkModel("H200", "2026-12-08")
	assert.Equal(t, Bucket{MinM: 1, MaxM: 1, Kernel: "k", SplitK: 2}, e.Buckets[0])
	assert.Equal(t, kept, e.Buckets[1])
	assert.Equal(t, [3]string{SourceModel, "H200", "2026-12-08"}, [3]string{e.Source, e.Device, e.Date})
	src, dev, date := e.Buckets[0].From(&e)
	assert.Equal(t, [3]string{SourceModel, "H200", "2026-12-08"}, [3]string{src, dev, date})
	model := Bucket{MinM: 3, Kernel: "k", SplitK: 1, Source: SourceModel, Device: "H200", Date: "2026-12-08"}
	e.Buckets = append(e.Buckets, model)
	e.MarkModel("H200", "2026-12-08")
	assert.Equal(t, Bucket{MinM: 3, Kernel: "k", SplitK: 1}, e.Buckets[2], "a kept bucket's provenance that is the entry's is the entry's")
}

func TestGeometricBuckets(t *testing.T) {
	assert.Equal(t, []Bucket{{MinM: 1, MaxM: 1}, {MinM: 2, MaxM: 2}, {MinM: 3, MaxM: 4}, {MinM: 5, MaxM: 8}, {MinM: 9, MaxM: 16}, {MinM: 17}},
		GeometricBuckets(16))
	assert.Len(t, GeometricBuckets(8192), 15)
	// The largest powers of two end (doubling past 2^62 once overflowed and never stopped).
	assert.Equal(t, Bucket{MinM: 1<<62 + 1}, GeometricBuckets(1 << 62)[63])
	assert.Len(t, GeometricBuckets(1<<62), 64)
	assert.Equal(t, GeometricBuckets(1<<62), GeometricBuckets(math.MaxInt), "not a power of two: the edges below it")
	// The scheme is one the loader accepts.
	bs := GeometricBuckets(64)
	for i := range bs {
		bs[i].Kernel, bs[i].Digest, bs[i].SplitK = "k90_bf16", kernels.DigestOf([]byte("k90_bf16")), 1
	}
	requireRoundTrip(t, &Table{Provenance: Provenance{Source: "test"}, Entries: []Entry{{Arch: SM90, Types: Types{In: BF16, Out: BF16}, Layout: "tn", Buckets: bs}}},
		tableTestCatalog(t))
}

// Every entry of the embedded table says its own source, device and date,
// so that no plan borrows the provenance's (the H200's, 2026-12-01) for an
// entry measured or modelled elsewhere or earlier: the device is of the
// entry's arch, a model's entry has no times and a measured one has them.
func TestDefaultTableEntriesNameTheirSource(t *testing.T) {
	tab, err := DefaultTable()
	require.NoError(t, err)
	date := regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	for _, e := range tab.Entries {
		name := e.Key().String()
		assert.Contains(t, []string{SourceMeasured, SourceModel}, e.Source, name)
		assert.Regexp(t, date, e.Date, name)
		dev, ok := presetFor(e.Device)
		if assert.True(t, ok, "%s: device %q is no preset's", name, e.Device) {
			assert.Equal(t, e.Arch, dev.Arch, "%s: device %q", name, e.Device)
		}
		for _, b := range e.Buckets {
			src, dev, day := b.From(&e)
			if len(b.TimesUS) > 0 {
				assert.Equal(t, SourceMeasured, src, "%s %s: timed", name, b.String())
			}
			assert.Regexp(t, date, day, "%s %s", name, b.String())
			_, ok := presetFor(dev)
			assert.True(t, ok, "%s %s: device %q is no preset's", name, b.String(), dev)
			assert.Contains(t, bucketSource(&e, &b, tab.Provenance), " "+dev+" ("+day+")", name)
		}
	}
}

// Explain's source line tells a measured bucket from the model's, and
// names the bucket's own device and date where it has them.
func TestBucketSource(t *testing.T) {
	prov := Provenance{Device: "NVIDIA H200", Date: "2026-11-30"}
	one := &Bucket{MinM: 1}
	measured := Entry{Source: SourceMeasured, Device: "NVIDIA H100 80GB HBM3", Date: "2026-12-01"}
	assert.Equal(t, "measured on NVIDIA H100 80GB HBM3 (2026-12-01)", bucketSource(&measured, one, prov))
	old := Entry{Buckets: []Bucket{{MinM: 1, TimesUS: map[int]float64{1: 3}}}}
	assert.Equal(t, "measured on NVIDIA H200 (2026-11-30)", bucketSource(&old, &old.Buckets[0], prov), "an older table's timed entry: the provenance's device")
	model := Entry{Source: SourceModel, Device: "NVIDIA A100-SXM4-80GB"}
	assert.Equal(t, "the analytic model's choice for NVIDIA A100-SXM4-80GB (2026-11-30), not measured", bucketSource(&model, one, prov))

	// A bucket kept from another table or spliced from another tune says
	// its own source, device and date.
	kept := &Bucket{MinM: 1, Source: SourceMeasured, Device: "NVIDIA H200", Date: "2026-12-05", TimesUS: map[int]float64{1: 3}}
	assert.Equal(t, "measured on NVIDIA H200 (2026-12-05)", bucketSource(&measured, kept, prov))
	assert.Equal(t, "measured on NVIDIA H200 (2026-12-05)", bucketSource(&model, kept, prov), "a measured bucket in a model entry")
	guess := &Bucket{MinM: 1, Source: SourceModel}
	assert.Equal(t, "the analytic model's choice for NVIDIA H100 80GB HBM3 (2026-12-01), not measured", bucketSource(&measured, guess, prov))

	// An entry naming no device is not the table's device's when its arch
	// is not the table's (buckets.yaml's sm_80 entries on an H200 table).
	prov.Arch = "sm_90"
	sm80 := Entry{Arch: SM80, Buckets: []Bucket{{MinM: 1}}}
	assert.Equal(t, "the analytic model's choice for an sm_80 device (the entry names none), not measured", bucketSource(&sm80, one, prov))
	sm90 := Entry{Arch: SM90, Buckets: []Bucket{{MinM: 1}}}
	assert.Equal(t, "the analytic model's choice for NVIDIA H200 (2026-11-30), not measured", bucketSource(&sm90, one, prov))
}

// Stamp gives a bucket its entry's provenance before it moves into another
// entry; Unstamp drops what the new entry says itself.
func TestBucketStampUnstamp(t *testing.T) {
	h200 := Entry{Source: SourceMeasured, Device: "NVIDIA H200", Date: "2026-12-05"}
	h100 := Entry{Source: SourceMeasured, Device: "NVIDIA H100 80GB HBM3", Date: "2026-12-07"}
	b := Bucket{MinM: 1}
	b.Stamp(&h200)
	assert.Equal(t, [3]string{SourceMeasured, "NVIDIA H200", "2026-12-05"}, [3]string{b.Source, b.Device, b.Date})
	b.Unstamp(&h100)
	assert.Equal(t, [3]string{"", "NVIDIA H200", "2026-12-05"}, [3]string{b.Source, b.Device, b.Date}, "the same source, another card and day")
	b.Unstamp(&h200)
	assert.Equal(t, Bucket{MinM: 1}, b)
	model := Entry{Source: SourceModel, Device: "NVIDIA H200", Date: "2026-11-30"}
	b.Stamp(&model)
	b.Unstamp(&h200)
	assert.Equal(t, [3]string{SourceModel, "", "2026-11-30"}, [3]string{b.Source, b.Device, b.Date}, "a model bucket in a measured entry")
}
