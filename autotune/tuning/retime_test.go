package tuning_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gemmroute/gemmroute/autotune/tuning"
	"github.com/gemmroute/gemmroute/autotune/tuning/tuningtest"
	"github.com/gemmroute/gemmroute/dispatch"
	"github.com/gemmroute/gemmroute/kernels"
)

// With BaseRoutes and no cuBLASLt, a table is measured again after a kernel
// change: only each bucket's route and its recorded runner-up are gated and
// timed, the written buckets carry the changed kernel's new digest (the
// table matches the new kernel set whole again), and where the changed
// kernel got slower than its runner-up the runner-up takes the bucket.
func TestRetimeBaseRoutesAfterAKernelChange(t *testing.T) {
	cfg, base := qkvBase(t)
	exact, _ := base.Find(dispatch.SM90, qkv.Types, qkv.N, qkv.K)
	require.NotNil(t, exact)
	allowed := map[tuning.Candidate]bool{}
	// overtaken: a bucket routed to t90_row whose runner-up, another kernel,
	// is within 3× of it.
	overtaken := func(b *dispatch.Bucket) bool {
		r := runnerUp(t, b)
		return b.Kernel == "t90_row" && r.Kernel != "" && r.Kernel != "t90_row" && b.MarginPct < 200
	}
	slowed := 0
	for i := range exact.Buckets {
		b := &exact.Buckets[i]
		allowed[tuning.BucketCandidate(b)], allowed[runnerUp(t, b)] = true, true
		if overtaken(b) {
			slowed++
		}
	}
	require.NotZero(t, slowed, "the test needs a t90_row bucket whose runner-up can win")

	// t90_row's compiled code changes (a new digest) and runs 3× slower.
	m := tuningtest.Manifest()
	for i := range m.Kernels {
		if m.Kernels[i].Name == "t90_row" {
			m.Kernels[i].Digest = kernels.DigestOf([]byte("t90_row, rebuilt"))
		}
	}
	cat, err := kernels.NewCatalog(m)
	require.NoError(t, err)
	before := base.MatchKernels(cat)
	require.NotZero(t, before.Changed)

	gpu := tuningtest.NewGPU()
	gpu.Speed = func(w tuning.Weight, m int, c tuning.Candidate) float64 {
		if c.Kernel == "t90_row" {
			return 3 * tuningtest.Speed(w, m, c)
		}
		return tuningtest.Speed(w, m, c)
	}
	cfg.Catalog, cfg.BaseRoutes, cfg.VendorAlgorithms = cat, base, 0
	res, err := tuning.Tune(cfg, []tuning.Measurer{gpu}, base)
	require.NoError(t, err)
	require.NotEmpty(t, gpu.Gated)
	for _, c := range gpu.Gated {
		assert.True(t, allowed[c], "%s is neither a route nor a runner-up of the base table", c)
	}
	retimed, _, err := tuning.Merge(base, tuning.Provenance(cat, res.Device, "", tuning.MethodBaseRoutes), tuning.Measured(res.Entries, res.Device), cat, true)
	require.NoError(t, err)
	after := retimed.MatchKernels(cat)
	assert.Zero(t, after.Changed, "every bucket measured again with the kernel set as it is now")
	assert.Zero(t, after.Missing)
	tuned, _ := retimed.Find(dispatch.SM90, qkv.Types, qkv.N, qkv.K)
	require.NotNil(t, tuned)
	for i := range exact.Buckets {
		was, now := &exact.Buckets[i], tuned.Bucket(exact.Buckets[i].MinM)
		require.NotNil(t, now)
		switch {
		case overtaken(was):
			assert.Equal(t, was.RunnerUp, tuning.BucketCandidate(now).String(), "bucket %s: the runner-up, now faster", was)
		case was.Kernel == "t90_row":
			assert.Contains(t, []string{tuning.BucketCandidate(was).String(), was.RunnerUp}, tuning.BucketCandidate(now).String(), "bucket %s", was)
		default:
			assert.Equal(t, tuning.BucketCandidate(was), tuning.BucketCandidate(now), "bucket %s: its route, unchanged", was)
			assert.Equal(t, was.TimesUS, now.TimesUS, "bucket %s: the same kernel, the same times", was)
		}
	}
}

// The default entry's route and runner-up are among every weight's
// candidates beside its exact entry's: the default, chosen over the weights
// together, finds them timed on each.
func TestBaseRoutesTakeTheDefaultsRoutesToo(t *testing.T) {
	cfg, base := qkvBase(t)
	exact, def := base.Find(dispatch.SM90, qkv.Types, qkv.N, qkv.K)
	require.NotNil(t, exact)
	require.NotNil(t, def)
	b := def.Bucket(12)
	b.Kernel, b.SplitK, b.RunnerUp = "t90_any", 1, "t90_row split-K 1"
	cfg.BaseRoutes = base
	cands, pruned := cfg.Candidates(qkv, tuning.Span{Lo: 9, Hi: 16}, tuningtest.NewGPU())
	assert.Empty(t, pruned)
	assert.ElementsMatch(t, []tuning.Candidate{tuning.BucketCandidate(exact.Bucket(12)), runnerUp(t, exact.Bucket(12)),
		{Kernel: "t90_any", SplitK: 1}, {Kernel: "t90_row", SplitK: 1}}, cands)
}

// qkvBase tunes qkv at M = 1…64 on the injected GPU and returns the config
// and the table written from it: the base table of the BaseRoutes tests.
func qkvBase(t *testing.T) (*tuning.Config, *dispatch.Table) {
	t.Helper()
	cfg := testConfig(t, qkv)
	cfg.MaxM = 64
	plain, err := tuning.Tune(cfg, []tuning.Measurer{tuningtest.NewGPU()}, nil)
	require.NoError(t, err)
	base, _, err := tuning.Merge(nil, tuning.Provenance(cfg.Catalog, plain.Device, "", tuning.Method), tuning.Measured(plain.Entries, plain.Device), cfg.Catalog, true)
	require.NoError(t, err)
	return cfg, base
}

// With Changed (tune -changed-since), only the (weight, bucket) units whose
// route or recorded runner-up runs a kernel whose digest changed are timed;
// every other bucket is the base table's, kernel, times and margin, and the
// table matches the new kernel set whole.
func TestRetimeOnlyTheChangedRoutes(t *testing.T) {
	cfg, base := qkvBase(t)
	exact, def := base.Find(dispatch.SM90, qkv.Types, qkv.N, qkv.K)
	require.NotNil(t, exact)
	require.NotNil(t, def)
	names := func(b *dispatch.Bucket) []string { return []string{b.Kernel, runnerUp(t, b).Kernel} }
	names2 := func(lo int) []string { return append(names(exact.Bucket(lo)), names(def.Bucket(lo))...) }
	// a kernel that some buckets name (route or runner-up, exact or default) and others do not
	changed, named := "", 0
	for _, b := range exact.Buckets {
		for _, k := range names2(b.MinM) {
			n := 0
			for _, c := range exact.Buckets {
				if slices.Contains(names2(c.MinM), k) {
					n++
				}
			}
			if k != "" && n > 0 && n < len(exact.Buckets)-1 && changed == "" {
				changed, named = k, n
			}
		}
	}
	require.NotEmpty(t, changed, "the test needs a kernel that some buckets name and others do not")

	m := tuningtest.Manifest()
	for i := range m.Kernels {
		if m.Kernels[i].Name == changed {
			m.Kernels[i].Digest = kernels.DigestOf([]byte(changed + ", rebuilt"))
		}
	}
	cat, err := kernels.NewCatalog(m)
	require.NoError(t, err)
	old := cfg.Catalog
	cfg.Catalog, cfg.BaseRoutes, cfg.VendorAlgorithms = cat, base, 0
	cfg.Changed = tuning.ChangedSince(old, cat)
	assert.True(t, cfg.Changed(changed))
	assert.False(t, cfg.Changed(exact.Buckets[0].Kernel) && exact.Buckets[0].Kernel != changed)
	gpu := tuningtest.NewGPU() // a slower card than the base table's: a bucket timed again gets other times
	gpu.Speed = func(w tuning.Weight, m int, c tuning.Candidate) float64 { return 1.5 * tuningtest.Speed(w, m, c) }
	res, err := tuning.Tune(cfg, []tuning.Measurer{gpu}, base)
	require.NoError(t, err)
	require.NotEmpty(t, res.Spans)
	t.Logf("changed %s: %d of %d buckets timed", changed, len(res.Spans), len(exact.Buckets))
	for _, r := range res.Spans {
		assert.Contains(t, names2(r.Span.Lo), changed, "bucket %v was timed though nothing it runs changed", r.Span)
	}
	assert.Less(t, len(res.Spans), len(exact.Buckets)-1, "some buckets were not timed")
	assert.LessOrEqual(t, len(res.Spans), named)

	retimed, _, err := tuning.Merge(base, tuning.Provenance(cat, res.Device, "", tuning.MethodBaseRoutes), tuning.Measured(res.Entries, res.Device), cat, true)
	require.NoError(t, err)
	after := retimed.MatchKernels(cat)
	assert.Zero(t, after.Changed, "the buckets that run the changed kernel have its new digest")
	assert.Zero(t, after.Missing)
	for _, e := range []*dispatch.Entry{exact, def} {
		now, _ := retimed.Find(dispatch.SM90, qkv.Types, e.N, e.K)
		if e == def {
			_, now = retimed.Find(dispatch.SM90, qkv.Types, 0, 0)
		}
		require.NotNil(t, now)
		for i := range e.Buckets {
			was := &e.Buckets[i]
			got := now.Bucket(was.MinM)
			require.NotNil(t, got)
			own := names(was)
			if e == exact {
				own = names2(was.MinM)
			}
			if slices.Contains(own, changed) || was.MaxM == 0 {
				continue
			}
			assert.Equal(t, [6]any{was.Kernel, was.SplitK, was.Digest, was.TimesUS, was.RunnerUp, was.MarginPct},
				[6]any{got.Kernel, got.SplitK, got.Digest, got.TimesUS, got.RunnerUp, got.MarginPct}, "%s bucket %s: the base table's", e.Key(), was)
		}
	}
}

// -changed-since without -base-routes is a Config error.
func TestChangedNeedsBaseRoutes(t *testing.T) {
	cfg := testConfig(t, qkv)
	cfg.Changed = func(string) bool { return true }
	var ce *tuning.ConfigError
	require.ErrorAs(t, cfg.Validate(), &ce)
	assert.Equal(t, "Changed", ce.Field)
}
