package tuning_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gemmroute/gemmroute/autotune/tuning"
	"github.com/gemmroute/gemmroute/autotune/tuning/tuningtest"
	"github.com/gemmroute/gemmroute/dispatch"
)

// cuBLASLt's candidates for a bucket: the heuristic's proposals at the
// sample Ms, each once, best first, at most VendorAlgorithms, without
// those the library refuses at an M the span runs — for bf16 and e4m3
// per-tensor weights alike; none for e4m3 weights with row or 128-block
// scales, with VendorAlgorithms 0, or from a measurer without cuBLASLt.
func TestVendorCandidates(t *testing.T) {
	cfg := testConfig(t)
	cfg.VendorAlgorithms = 3
	a, b, c := tuningtest.VendorAlgo(1), tuningtest.VendorAlgo(2), tuningtest.VendorAlgo(3)
	gpu := tuningtest.NewVendorGPU(func(int) float64 { return 1 }, a, b, c)
	sp := tuning.Span{Lo: 9, Hi: 16}
	gpu.Unfit[b] = sp.Hi - 1 // a gate M
	got, err := cfg.VendorCandidates(gpu, qkv, sp)
	require.NoError(t, err)
	assert.Equal(t, []tuning.Candidate{a, c}, got, "b is refused at M=15")
	assert.Equal(t, sp.SampleMs(), gpu.Asked, "the heuristic is asked at each sample M")

	cfg.VendorAlgorithms = 2 // the heuristic proposes a and b only
	got, err = cfg.VendorCandidates(gpu, qkv, sp)
	require.NoError(t, err)
	assert.Equal(t, []tuning.Candidate{a}, got)

	cfg.VendorAlgorithms = 3
	for _, ty := range []string{"e4m3→bf16", "e4m3→f16"} {
		fp8 := tuning.Weight{Name: "o", Types: tuningtest.Types(ty), N: 4096, K: 4096}
		got, err = cfg.VendorCandidates(gpu, fp8, sp)
		require.NoError(t, err)
		assert.Equal(t, []tuning.Candidate{a, c}, got, "%s per-tensor: cuBLASLt's FP8 matmul", ty)
	}

	row := tuning.Weight{Name: "o", Types: tuningtest.Types("e4m3→bf16/row"), N: 4096, K: 4096}
	block := tuning.Weight{Name: "o", Types: tuningtest.Types("e4m3→f16/block128"), N: 4096, K: 4096}
	for name, c := range map[string]struct {
		cfgN int
		m    tuning.Measurer
		w    tuning.Weight
	}{"e4m3 row": {8, gpu, row}, "e4m3 block128": {8, gpu, block}, "off": {0, gpu, qkv}, "no cuBLASLt": {8, tuningtest.NewGPU(), qkv}} {
		cfg.VendorAlgorithms = c.cfgN
		got, err := cfg.VendorCandidates(c.m, c.w, sp)
		require.NoError(t, err, name)
		assert.Empty(t, got, name)
	}
	assert.Regexp(t, `^cuBLASLt 12\.8\.4 algorithm [0-9a-f]{8}$`, a.String(), "named as Explain names it")
	assert.Regexp(t, `^cublaslt:12\.8\.4:[0-9a-f]{8}$`, a.Column())
	assert.True(t, a.IsVendor())
	assert.False(t, tuning.Candidate{Kernel: "k", SplitK: 1}.IsVendor())
}

// VendorUse takes cuBLASLt's algorithms only where every measurer has the
// same version loaded, and says why not otherwise.
func TestVendorUse(t *testing.T) {
	cfg := testConfig(t)
	cfg.VendorAlgorithms = 8
	gpu := func(version int, absent string) *tuningtest.VendorGPU {
		g := tuningtest.NewVendorGPU(func(int) float64 { return 1 })
		g.Lib = dispatch.VendorLibrary{Version: version, Absent: absent}
		return g
	}
	for _, c := range []struct {
		name string
		ms   []tuning.Measurer
		n    int
		note string
	}{
		{"loaded", []tuning.Measurer{gpu(120804, ""), gpu(120804, "")}, 8, "cuBLASLt 12.8.4: its top 8 heuristic algorithms per bucket are candidates beside our kernels for bf16, f16 and e4m3 per-tensor weights"},
		{"absent", []tuning.Measurer{gpu(120804, ""), gpu(0, "cuBLASLt absent: libcublasLt.so.13: cannot open shared object file")}, 0,
			"cuBLASLt on measurer 1 (NVIDIA H200): cuBLASLt absent: libcublasLt.so.13: cannot open shared object file; our kernels only are candidates"},
		{"versions", []tuning.Measurer{gpu(120804, ""), gpu(130105, "")}, 0, "the measurers loaded 12.8.4 and 13.1.5"},
		{"plain measurer", []tuning.Measurer{tuningtest.NewGPU()}, 0, "measurer 0 (NVIDIA H200) cannot measure it"},
	} {
		n, note := cfg.VendorUse(c.ms)
		assert.Equal(t, c.n, n, c.name)
		assert.Contains(t, note, c.note, c.name)
	}
	cfg.VendorAlgorithms = 0
	n, note := cfg.VendorUse([]tuning.Measurer{gpu(120804, "")})
	assert.Zero(t, n)
	assert.Equal(t, "cuBLASLt: off; our kernels only are candidates", note)
	cfg.VendorAlgorithms = 65
	cfg.Weights = []tuning.Weight{qkv}
	var ce *tuning.ConfigError
	require.ErrorAs(t, cfg.Validate(), &ce)
	assert.Equal(t, "VendorAlgorithms", ce.Field)
}

// A cuBLASLt algorithm that wins a bucket is gated and timed like our
// kernels and recorded as the bucket's Vendor, beside the best of our
// kernels there (kernel, digest, split-K and their own times: the route
// where cuBLASLt cannot run); a kernel of ours wins where it is faster; the
// merged table writes and loads back with the vendor bucket; a measurer
// without cuBLASLt tunes the kernels-only table.
func TestTuneRecordsVendorBucket(t *testing.T) {
	cfg := testConfig(t, qkv)
	cfg.MaxM, cfg.VendorAlgorithms = 64, 8
	slow, fast := tuningtest.VendorAlgo(1), tuningtest.VendorAlgo(2)
	gpu := tuningtest.NewVendorGPU(fastFrom33, fast, slow)
	gpu.Speed = func(w tuning.Weight, m int, c tuning.Candidate) float64 { // slow is the slower of the two
		switch {
		case c == slow:
			return 1.1 * gpu.VendorUS(m)
		case c.IsVendor():
			return gpu.VendorUS(m)
		}
		return tuningtest.Speed(w, m, c)
	}
	res, err := tuning.Tune(cfg, []tuning.Measurer{gpu}, nil)
	require.NoError(t, err)
	assert.Equal(t, 8, res.Config.VendorAlgorithms)
	assert.Contains(t, gpu.Gated, fast, "gated like ours")
	exact, _ := (&dispatch.Table{Entries: res.Entries}).Find(dispatch.SM90, qkv.Types, qkv.N, qkv.K)
	require.NotNil(t, exact)
	b := exact.Bucket(64)
	require.NotNil(t, b.Vendor, "%+v", *b)
	assert.Equal(t, fast.Vendor, *b.Vendor)
	assert.Equal(t, slow.String(), b.RunnerUp)
	assert.Equal(t, 0.5, b.TimesUS[64])
	// our kernels' own choice, as a tune without cuBLASLt makes it
	require.NotEmpty(t, b.Kernel)
	assert.Equal(t, cfg.Catalog.Kernel(b.Kernel).Digest, b.Digest)
	require.Contains(t, b.KernelTimesUS, 64)
	assert.Greater(t, b.KernelTimesUS[64], b.TimesUS[64])
	assert.Nil(t, exact.Bucket(1).Vendor, "our kernel is faster at M = 1")
	assert.NotEmpty(t, exact.Bucket(1).Kernel)

	prov := tuning.Provenance(cfg.Catalog, res.Device, "", tuning.Method)
	tab, _, err := tuning.Merge(nil, prov, tuning.Measured(res.Entries, res.Device), cfg.Catalog, true)
	require.NoError(t, err, "the table with a vendor bucket loads")
	data, err := tab.Marshal()
	require.NoError(t, err)
	assert.Contains(t, string(data), "        split_k: 1\n        vendor:\n          algo: "+fast.Vendor.Algo+"\n          version: 120804\n")
	back, err := dispatch.LoadTable("tuned.yaml", data, cfg.Catalog)
	require.NoError(t, err)
	e, _ := back.Find(dispatch.SM90, qkv.Types, qkv.N, qkv.K)
	require.NotNil(t, e)
	assert.Equal(t, fast.Vendor, *e.Bucket(64).Vendor)
	assert.Equal(t, 4, dispatch.NewPlanner(cfg.Catalog, back, gpu.Dev, dispatch.Limits{}).WithVendor(gpu.Lib).KernelMatch().Vendor,
		"[33, 64] and [65, ∞) of both entries route to cuBLASLt 12.8.4")

	assert.Equal(t, 4, dispatch.NewPlanner(cfg.Catalog, back, gpu.Dev, dispatch.Limits{}).KernelMatch().Matched-
		dispatch.NewPlanner(cfg.Catalog, back, gpu.Dev, dispatch.Limits{}).WithVendor(gpu.Lib).KernelMatch().Matched,
		"without cuBLASLt the four vendor buckets run their kernels")

	plain, err := tuning.Tune(cfg, []tuning.Measurer{tuningtest.NewGPU()}, nil)
	require.NoError(t, err)
	assert.Zero(t, plain.Config.VendorAlgorithms, "no cuBLASLt on the measurer: our kernels only")
	for _, e := range plain.Entries {
		for _, b := range e.Buckets {
			assert.Nil(t, b.Vendor)
		}
	}
	pe, _ := (&dispatch.Table{Entries: plain.Entries}).Find(dispatch.SM90, qkv.Types, qkv.N, qkv.K)
	require.NotNil(t, pe)
	assert.Equal(t, tuning.BucketCandidate(pe.Bucket(64)), tuning.Candidate{Kernel: b.Kernel, SplitK: b.SplitK},
		"the vendor bucket's kernel is the one a tune without cuBLASLt chooses")
}

// An e4m3 per-tensor weight is tuned with cuBLASLt's algorithms beside our
// e4m3 kernels: one that wins a bucket is gated, timed and recorded as its
// Vendor in the entry's types, and the merged table loads back with it.
func TestTuneRecordsE4M3VendorBucket(t *testing.T) {
	o := tuning.Weight{Name: "l3-8b.o", Types: tuningtest.Types("e4m3→bf16"), N: 4096, K: 4096}
	cfg := testConfig(t, o)
	cfg.MaxM, cfg.VendorAlgorithms = 64, 8
	fast := tuningtest.VendorAlgo(2)
	gpu := tuningtest.NewVendorGPU(fastFrom33, fast)
	res, err := tuning.Tune(cfg, []tuning.Measurer{gpu}, nil)
	require.NoError(t, err)
	assert.Contains(t, gpu.Gated, fast, "gated like ours")
	exact, _ := (&dispatch.Table{Entries: res.Entries}).Find(dispatch.SM90, o.Types, o.N, o.K)
	require.NotNil(t, exact)
	require.NotNil(t, exact.Bucket(64).Vendor, "%+v", *exact.Bucket(64))
	assert.Equal(t, fast.Vendor, *exact.Bucket(64).Vendor)
	assert.Nil(t, exact.Bucket(1).Vendor, "our kernel is faster at M = 1")

	prov := tuning.Provenance(cfg.Catalog, res.Device, "", tuning.Method)
	tab, _, err := tuning.Merge(nil, prov, tuning.Measured(res.Entries, res.Device), cfg.Catalog, true)
	require.NoError(t, err)
	data, err := tab.Marshal()
	require.NoError(t, err)
	back, err := dispatch.LoadTable("tuned.yaml", data, cfg.Catalog)
	require.NoError(t, err)
	e, _ := back.Find(dispatch.SM90, o.Types, o.N, o.K)
	require.NotNil(t, e)
	assert.Equal(t, fast.Vendor, *e.Bucket(64).Vendor)
}

// With BaseRoutes, our candidates are the base table's routes alone (its
// kernel and split-K at each bucket, and the bucket's runner-up), gated and
// timed beside cuBLASLt's algorithms: a bucket cuBLASLt wins keeps the
// base's kernel beside the algorithm, and one it loses keeps the base's
// route.
func TestTuneBesideBaseRoutes(t *testing.T) {
	cfg, base := qkvBase(t)
	exact, def := base.Find(dispatch.SM90, qkv.Types, qkv.N, qkv.K)
	require.NotNil(t, exact)
	routes := map[tuning.Candidate]bool{}
	for _, e := range []*dispatch.Entry{exact, def} {
		for i := range e.Buckets {
			routes[tuning.BucketCandidate(&e.Buckets[i])] = true
			routes[runnerUp(t, &e.Buckets[i])] = true
		}
	}

	fast := tuningtest.VendorAlgo(2)
	gpu := tuningtest.NewVendorGPU(fastFrom33, fast)
	cfg.VendorAlgorithms, cfg.BaseRoutes = 8, base
	res, err := tuning.Tune(cfg, []tuning.Measurer{gpu}, base)
	require.NoError(t, err)
	require.NotEmpty(t, gpu.Gated)
	for _, c := range gpu.Gated {
		assert.True(t, c.IsVendor() || routes[c], "%s is not a route of the base table", c)
	}
	tuned, _ := (&dispatch.Table{Entries: res.Entries}).Find(dispatch.SM90, qkv.Types, qkv.N, qkv.K)
	require.NotNil(t, tuned)
	b, was := tuned.Bucket(64), exact.Bucket(64)
	require.NotNil(t, b.Vendor)
	assert.Equal(t, fast.Vendor, *b.Vendor)
	assert.Equal(t, tuning.Candidate{Kernel: was.Kernel, SplitK: was.SplitK}, tuning.Candidate{Kernel: b.Kernel, SplitK: b.SplitK})
	assert.Equal(t, was.Digest, b.Digest)
	assert.Nil(t, tuned.Bucket(1).Vendor)
	assert.Equal(t, tuning.BucketCandidate(exact.Bucket(1)), tuning.BucketCandidate(tuned.Bucket(1)), "cuBLASLt slower: the base's route")
}

// runnerUp is b's recorded runner-up as a candidate (the zero candidate
// when b has none), read as the tuner reads it.
func runnerUp(t *testing.T, b *dispatch.Bucket) tuning.Candidate {
	c, ok := tuning.ParseKernelCandidate(b.RunnerUp)
	require.True(t, ok || b.RunnerUp == "", b.RunnerUp)
	return c
}

// fastFrom33 is a cuBLASLt algorithm's time: faster than every kernel of
// ours at M ≥ 33, far slower below.
func fastFrom33(m int) float64 {
	if m >= 33 {
		return 0.5
	}
	return 1e4
}
