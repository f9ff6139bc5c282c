package tuning_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gemmroute/gemmroute/autotune/tuning"
	"github.com/gemmroute/gemmroute/autotune/tuning/tuningtest"
	"github.com/gemmroute/gemmroute/dispatch"
	"github.com/gemmroute/gemmroute/kernels"
)

type cand = tuning.Candidate

func testConfig(t *testing.T, ws ...tuning.Weight) *tuning.Config {
	cat, err := tuningtest.Catalog()
	require.NoError(t, err)
	return &tuning.Config{Catalog: cat, Weights: ws, MaxM: 8192, Splits: []int{1, 2, 4, 8}, Workspace: 256 << 20,
		ScreenReps: 3, Reps: 20, EventCalls: 50, Keep: 1.3, Tie: 0.02, Noise: 0.05}
}

var qkv = tuning.Weight{Name: "l3-8b.qkv", Types: tuningtest.Types("bf16"), N: 6144, K: 4096}

func TestCandidatesNativeImageConstraintsAndWorkspace(t *testing.T) {
	cfg := testConfig(t)
	gpu := tuningtest.NewGPU()
	cands, pruned := cfg.Candidates(qkv, tuning.Span{Lo: 9, Hi: 16}, gpu)
	assert.Empty(t, pruned) // prune 0: time everything
	assert.NotContains(t, cands, cand{Kernel: "t80_mma", SplitK: 1}, "the sm_80 image is not native on sm_90")
	assert.Contains(t, cands, cand{Kernel: "t90_mma", SplitK: 8})
	assert.NotContains(t, cands, cand{Kernel: "t90_big", SplitK: 2}, "t90_big has no split-K")

	// Odd N and K: only the 2-byte kernel qualifies.
	odd := tuning.Weight{Name: "odd", Types: tuningtest.Types("bf16"), N: 769, K: 5125}
	cands, _ = cfg.Candidates(odd, tuning.Span{Lo: 9, Hi: 16}, gpu)
	assert.Equal(t, []cand{{Kernel: "t90_any", SplitK: 1}}, cands)

	// A split whose workspace exceeds the reserve is not tried.
	cfg.Workspace = 4 * 16 * 6144 * 4 // split-K 4 at M = 16 fits, 8 does not
	cands, _ = cfg.Candidates(qkv, tuning.Span{Lo: 9, Hi: 16}, gpu)
	assert.Contains(t, cands, cand{Kernel: "t90_mma", SplitK: 4})
	assert.NotContains(t, cands, cand{Kernel: "t90_mma", SplitK: 8})

	// The model prunes the 1-token kernel at large M and keeps the big tile.
	cfg = testConfig(t)
	cfg.Prune = 4
	cands, pruned = cfg.Candidates(qkv, tuning.Span{Lo: 4097, Hi: 8192}, gpu)
	assert.Contains(t, pruned, cand{Kernel: "t90_row", SplitK: 1})
	assert.Contains(t, cands, cand{Kernel: "t90_big", SplitK: 1})

	// ... but never what the base table routes the weight to there, nor
	// that bucket's recorded runner-up: the incumbent is always timed.
	cfg.SetIncumbent(&dispatch.Table{Entries: []dispatch.Entry{{Arch: dispatch.SM90, Types: qkv.Types, Layout: "tn", N: qkv.N, K: qkv.K,
		Buckets: []dispatch.Bucket{{MinM: 1, Kernel: "t90_row", SplitK: 1, RunnerUp: "t90_any split-K 1"}}}}})
	cands, pruned = cfg.Candidates(qkv, tuning.Span{Lo: 4097, Hi: 8192}, gpu)
	assert.Contains(t, cands, cand{Kernel: "t90_row", SplitK: 1})
	assert.NotContains(t, pruned, cand{Kernel: "t90_row", SplitK: 1})
	assert.Contains(t, cands, cand{Kernel: "t90_any", SplitK: 1})
	assert.Empty(t, pruned)
	assert.Contains(t, cands, cand{Kernel: "t90_big", SplitK: 1})
}

// A 16-bit weight's candidates keep the twins of what the base table routes
// the same weight to in the other 16-bit type: f16's tune times the bf16
// route's f16 build even where the model would prune it.
func TestCandidatesKeepTheOther16BitTypesRoutes(t *testing.T) {
	cat, err := dispatch.DefaultCatalog()
	require.NoError(t, err)
	cfg := &tuning.Config{Catalog: cat, Splits: []int{1, 2, 4, 8}, Workspace: 32 << 20, Prune: 1.5}
	o := tuning.Weight{Name: "o", Types: tuningtest.Types("f16"), N: 4096, K: 4096}
	sp := tuning.Span{Lo: 65, Hi: 128}
	f16 := cand{Kernel: "gemmroute_sm90_ws_wgmma_swap_f16_f16_f32_tn_64x64x64_w8_s10_a16", SplitK: 2}
	_, pruned := cfg.Candidates(o, sp, tuningtest.NewGPU())
	require.Contains(t, pruned, f16, "the model prunes it: the rule below is what keeps it")
	bf16 := tuningtest.Types("bf16")
	cfg.SetIncumbent(&dispatch.Table{Entries: []dispatch.Entry{{Arch: dispatch.SM90, Types: bf16, Layout: "tn", N: o.N, K: o.K,
		Buckets: []dispatch.Bucket{{MinM: 65, MaxM: 128, Kernel: "gemmroute_sm90_ws_wgmma_swap_bf16_bf16_f32_tn_64x64x64_w8_s10_a16", SplitK: 2}}}}})
	cands, pruned := cfg.Candidates(o, sp, tuningtest.NewGPU())
	assert.Contains(t, cands, f16)
	assert.NotContains(t, pruned, f16)
	for _, c := range cands {
		assert.NotContains(t, c.Kernel, "bf16", "only kernels that compute f16")
	}
	// e4m3 weights have no twin: the bf16 entry is not theirs.
	fp8 := o
	fp8.Types = tuningtest.Types("e4m3→bf16")
	cands, _ = cfg.Candidates(fp8, sp, tuningtest.NewGPU())
	assert.NotContains(t, cands, cand{Kernel: "gemmroute_sm90_ws_wgmma_swap_bf16_bf16_f32_tn_64x64x64_w8_s10_a16", SplitK: 2})
}

// A candidate must plan at every M of its bucket, not at the edges alone:
// on the H200's catalog the stream-K repack 128x128 for N = 769, K = 5125
// fits 32 MiB at M = 2049, 4095 and 4096 (its copies run in chunks there)
// but not at M = 2897, the bucket's probe (its stream-K partials leave no
// room to chunk), where timing it ended a tune of the odd shape
// (docs/perf/2026-12-02-h200-c, call 2).
func TestCandidatesPlanAtEveryMOfTheBucket(t *testing.T) {
	cat, err := dispatch.DefaultCatalog()
	require.NoError(t, err)
	cfg := &tuning.Config{Catalog: cat, Splits: []int{1}, Workspace: 32 << 20}
	odd := tuning.Weight{Name: "odd", Types: tuningtest.Types("bf16"), N: 769, K: 5125}
	const sk = "gemmroute_sm90_ws_wgmma_sk_rp_bf16_bf16_f32_tn_128x128x64_w12_s6_a2"
	pl := dispatch.NewPlanner(cat, nil, dispatch.H200, dispatch.Limits{WorkspaceBytes: cfg.Workspace})
	for m, fits := range map[int]bool{2049: true, 2897: false, 4095: true, 4096: true} {
		p := dispatch.PlaceholderProblem(m, odd.N, odd.K, odd.Types)
		_, err := pl.PlanKernel(&p, sk, 1)
		require.Equal(t, fits, err == nil, "M = %d: the case this test is about no longer holds: %v", m, err)
	}
	cands, _ := cfg.Candidates(odd, tuning.Span{Lo: 2049, Hi: 4096}, tuningtest.NewGPU())
	assert.NotContains(t, cands, cand{Kernel: sk, SplitK: 1})
	assert.NotEmpty(t, cands)
	for _, c := range cands {
		for m := 2049; m <= 4096; m++ {
			p := dispatch.PlaceholderProblem(m, odd.N, odd.K, odd.Types)
			_, err := pl.PlanKernel(&p, c.Kernel, c.SplitK)
			require.NoError(t, err, "%s at M = %d", c, m)
		}
	}
}

func TestTuneSpanRejectsFastWrongKernel(t *testing.T) {
	cfg := testConfig(t, qkv)
	gpu := tuningtest.NewGPU()
	r, err := cfg.TuneSpan(gpu, qkv, tuning.Span{Lo: 9, Hi: 16})
	require.NoError(t, err)
	require.Len(t, r.Rejects, 1)
	assert.Equal(t, cand{Kernel: "t90_wrong", SplitK: 1}, r.Rejects[0].Candidate)
	assert.Equal(t, 9, r.Rejects[0].M, "rejected at the first gate M")
	assert.Contains(t, r.Rejects[0].Why, "D[3,17]")
	for _, call := range gpu.Timed {
		assert.NotEqual(t, "t90_wrong", call.C.Kernel, "a wrong kernel is never timed")
	}
	// Every passed candidate was gated at 9, 16 and 15.
	assert.Equal(t, 3*(len(r.Passed))+1, len(gpu.Gated))
	assert.NotContains(t, r.Passed, cand{Kernel: "t90_wrong", SplitK: 1})
}

func TestTuneSpanScreensKeepsAndProbes(t *testing.T) {
	cfg := testConfig(t, qkv)
	gpu := tuningtest.NewGPU()
	r, err := cfg.TuneSpan(gpu, qkv, tuning.Span{Lo: 9, Hi: 16})
	require.NoError(t, err)
	// At M = 9…16 t90_mma split 4 is fastest (9.9·0.9 µs at both edges);
	// t90_row (72–128 µs) and t90_big (35 µs) are screened out.
	assert.Contains(t, r.Kept, cand{Kernel: "t90_mma", SplitK: 4})
	assert.NotContains(t, r.Kept, cand{Kernel: "t90_row", SplitK: 1})
	assert.NotContains(t, r.Kept, cand{Kernel: "t90_big", SplitK: 1})
	for _, c := range r.Kept {
		assert.Contains(t, r.Times[9], c)
		assert.Contains(t, r.Times[16], c)
		assert.Contains(t, r.Probe, c, "kept candidates are timed at the held-out M")
	}
	assert.Equal(t, 12, tuning.Span{Lo: 9, Hi: 16}.ProbeM())
	var phases []string
	for _, l := range r.Log {
		if !slices.Contains(phases, l.Phase) {
			phases = append(phases, l.Phase)
		}
	}
	assert.Equal(t, []string{"screen", "full", "probe"}, phases)
	for _, call := range gpu.Timed {
		if call.M == 12 {
			assert.Equal(t, 20, call.Reps)
		}
	}
}

func TestTuneSpanRetimesNearTiesAndNoise(t *testing.T) {
	cfg := testConfig(t, qkv)
	gpu := tuningtest.NewGPU()
	// Two candidates 1 % apart at M = 1, and t90_row noisy on its first timings.
	gpu.Speed = func(w tuning.Weight, m int, c cand) float64 {
		switch c {
		case cand{Kernel: "t90_row", SplitK: 1}:
			return 10
		case cand{Kernel: "t90_mma", SplitK: 1}:
			return 10.1
		}
		return 50
	}
	gpu.Noisy = map[cand]int{{Kernel: "t90_row", SplitK: 1}: 2} // screen and full timings are noisy
	r, err := cfg.TuneSpan(gpu, qkv, tuning.Span{Lo: 1, Hi: 1})
	require.NoError(t, err)
	assert.Equal(t, []cand{{Kernel: "t90_mma", SplitK: 1}, {Kernel: "t90_row", SplitK: 1}}, r.Retimed)
	var retimed []cand
	for _, row := range r.Log {
		if row.Phase == "retime" {
			retimed = append(retimed, row.Candidate)
		}
	}
	assert.Equal(t, []cand{{Kernel: "t90_mma", SplitK: 1}, {Kernel: "t90_row", SplitK: 1}, {Kernel: "t90_mma", SplitK: 1}, {Kernel: "t90_row", SplitK: 1},
		{Kernel: "t90_mma", SplitK: 1}, {Kernel: "t90_row", SplitK: 1}}, retimed, "the near-ties in turn, three rounds at the bucket's one M")
	assert.InDelta(t, 0.01, r.Times[1][cand{Kernel: "t90_row", SplitK: 1}].Dispersion(), 1e-9, "the re-timing replaced the noisy one")

	// A candidate noisy every time is timed again and stays noisy (the
	// report flags it: see report's TestNotesFlagNoisyTimings).
	gpu = tuningtest.NewGPU()
	gpu.Noisy = map[cand]int{{Kernel: "t90_mma", SplitK: 4}: 100}
	r, err = cfg.TuneSpan(gpu, qkv, tuning.Span{Lo: 9, Hi: 16})
	require.NoError(t, err)
	assert.Contains(t, r.Retimed, cand{Kernel: "t90_mma", SplitK: 4})
	assert.Greater(t, r.Times[16][cand{Kernel: "t90_mma", SplitK: 4}].Dispersion(), cfg.Noise)
}

func TestTuneSpanStopsOnDeviceError(t *testing.T) {
	cfg := testConfig(t, qkv)
	gpu := tuningtest.NewGPU()
	gpu.Fail = errors.New("CUDA_ERROR_ILLEGAL_ADDRESS")
	_, err := cfg.TuneSpan(gpu, qkv, tuning.Span{Lo: 9, Hi: 16})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "CUDA_ERROR_ILLEGAL_ADDRESS")
	assert.Contains(t, err.Error(), "l3-8b.qkv M=9")
}

// Tune end to end on two fake GPUs: the choices follow tuningtest.Speed,
// the default entry learns from the aligned weights only, and the merged
// table keeps the base's other entries.
func TestTuneChoosesAndMerges(t *testing.T) {
	o := tuning.Weight{Name: "o", Types: tuningtest.Types("bf16"), N: 4096, K: 4096}
	odd := tuning.Weight{Name: "odd", Types: tuningtest.Types("bf16"), N: 769, K: 5125}
	cfg := testConfig(t, qkv, o, odd)
	cfg.MaxM = 4096
	var progress []int
	cfg.Progress = func(done, total int) { progress = append(progress, total) }
	older := kernels.DigestOf([]byte("t80_mma as it was"))
	base := &dispatch.Table{Provenance: dispatch.Provenance{Source: "base"}, Entries: []dispatch.Entry{
		{Arch: dispatch.SM80, Types: dispatch.Types{In: dispatch.BF16, Out: dispatch.BF16}, Layout: "tn", Buckets: []dispatch.Bucket{{MinM: 1, Kernel: "t80_mma", Digest: older, SplitK: 1}}}}}
	res, err := tuning.Tune(cfg, []tuning.Measurer{tuningtest.NewGPU(), tuningtest.NewGPU()}, base)
	require.NoError(t, err)
	assert.Len(t, res.Spans, 3*13)
	assert.Len(t, res.Entries, 4, "qkv, o, odd and the default")
	assert.Len(t, res.Choices, 4*14)
	assert.GreaterOrEqual(t, len(progress), 3*13)
	for _, c := range res.Choices {
		assert.Equal(t, cfg.Catalog.Kernel(c.Bucket.Kernel).Digest, c.Bucket.Digest, "%s %s: a bucket records its kernel's digest", c.Key, c.Bucket.String())
	}
	tab, kept, err := tuning.Merge(base, tuning.Provenance(cfg.Catalog, dispatch.H200, "580.1", tuning.Method), tuning.Measured(res.Entries, dispatch.H200), cfg.Catalog, false)
	assert.Empty(t, kept)
	require.NoError(t, err)
	assert.Equal(t, "measured", tab.Provenance.Source)
	assert.Equal(t, "sm_90", tab.Provenance.Arch)
	assert.Equal(t, tuning.Method, tab.Provenance.Method)
	exact, def := tab.Find(dispatch.SM90, dispatch.Types{In: dispatch.BF16, Out: dispatch.BF16}, 6144, 4096)
	require.NotNil(t, exact)
	require.NotNil(t, def)
	assert.Equal(t, "t90_row", exact.Bucket(1).Kernel)
	assert.Equal(t, "t90_mma", exact.Bucket(12).Kernel)
	assert.Equal(t, 4, exact.Bucket(12).SplitK)
	assert.Equal(t, "t90_big", exact.Bucket(100000).Kernel)
	assert.NotEqual(t, "t90_any", def.Bucket(64).Kernel, "the odd weight does not shape the default")
	_, sm80 := tab.Find(dispatch.SM80, dispatch.Types{In: dispatch.BF16, Out: dispatch.BF16}, 1, 1)
	require.NotNil(t, sm80)
	assert.Equal(t, older, sm80.Buckets[0].Digest, "the base's entry as it was")
	for _, sr := range res.Spans {
		if sr.Weight == qkv && sr.Span.Lo == 1 {
			assert.Equal(t, tuning.Timing{Median: 17, P90: 18.12}, sr.Events[1], "the events column times the exact choice")
		}
	}
	heur := tuning.Heuristic(res.Entries, dispatch.H200)
	assert.Empty(t, heur[0].Buckets[0].TimesUS)
	assert.Equal(t, dispatch.SourceModel, heur[0].Source)
	assert.True(t, tab.Entries[len(tab.Entries)-1].Measured())
	// The model's choices merged over the measured table keep every measured entry.
	over, kept, err := tuning.Merge(tab, tab.Provenance, heur, cfg.Catalog, false)
	require.NoError(t, err)
	assert.Len(t, kept, len(heur))
	assert.Equal(t, tab.Entries, over.Entries)
	assert.NotEmpty(t, res.Entries[0].Buckets[0].TimesUS, "Heuristic copies")

	// Two kinds of GPU in one run are refused, and so is a bad config.
	a100 := tuningtest.NewGPU()
	a100.Dev.Name = "NVIDIA A100-SXM4-80GB"
	_, err = tuning.Tune(cfg, []tuning.Measurer{tuningtest.NewGPU(), a100}, base)
	assert.ErrorContains(t, err, "one kind of GPU")
	cfg.Keep = 0.5
	_, err = tuning.Tune(cfg, []tuning.Measurer{tuningtest.NewGPU()}, base)
	var ce *tuning.ConfigError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, "Keep", ce.Field)
}

// With MinM above 1 a run tunes buckets MinM…MaxM alone: each entry keeps
// the base table's buckets below and above them (the exact entry's, else the
// default's; one across an edge of the range keeps its part outside it), the
// choices list the tuned buckets only, and a base with a gap next to the
// tuned buckets is refused.
// A run past its deadline starts no more units: the buckets it did not
// measure keep the base table's choices, the events column is left out, and
// Result says so; with the deadline ahead, nothing changes.
func TestTuneDeadline(t *testing.T) {
	cfg := testConfig(t, qkv)
	cfg.MinM, cfg.MaxM = 17, 512
	bf16 := dispatch.Types{In: dispatch.BF16, Out: dispatch.BF16}
	e := dispatch.Entry{Arch: dispatch.SM90, Types: bf16, Layout: "tn", N: qkv.N, K: qkv.K}
	for _, b := range dispatch.GeometricBuckets(8192) {
		b.Kernel, b.SplitK = "t90_any", 1
		e.Buckets = append(e.Buckets, b)
	}
	def := e
	def.N, def.K = 0, 0
	base := &dispatch.Table{Provenance: dispatch.Provenance{Source: "base"}, Entries: []dispatch.Entry{def, e}}

	cfg.Deadline = time.Now().Add(time.Hour)
	res, err := tuning.Tune(cfg, []tuning.Measurer{tuningtest.NewGPU()}, base)
	require.NoError(t, err)
	assert.Empty(t, res.Unmeasured)
	assert.False(t, res.NoEvents)
	assert.Len(t, res.Spans, 5)

	cfg.Deadline = time.Now().Add(-time.Second)
	res, err = tuning.Tune(cfg, []tuning.Measurer{tuningtest.NewGPU()}, base)
	require.NoError(t, err)
	assert.Len(t, res.Unmeasured, 5, "[17, 32] … [257, 512] of qkv, none started")
	assert.True(t, res.NoEvents)
	assert.Empty(t, res.Spans)
	assert.Empty(t, res.Entries, "nothing to merge: the base table stands")

	// The deadline passes during the first unit (the largest bucket): that
	// one is measured, the four after it keep the base's choices.
	cfg.Deadline = time.Now().Add(50 * time.Millisecond)
	res, err = tuning.Tune(cfg, []tuning.Measurer{&slowFirstCheck{Measurer: tuningtest.NewGPU(), wait: 100 * time.Millisecond}}, base)
	require.NoError(t, err)
	require.Len(t, res.Spans, 1)
	assert.Equal(t, tuning.Span{Lo: 257, Hi: 512}, res.Spans[0].Span)
	assert.Len(t, res.Unmeasured, 4)
	assert.True(t, res.NoEvents)
	for _, en := range res.Entries {
		for _, b := range en.Buckets {
			if b.MinM == 257 {
				assert.NotEmpty(t, b.TimesUS, "%s %s: measured", en.Key(), b.String())
				continue
			}
			assert.Equal(t, "t90_any", b.Kernel, "%s %s: the base's choice", en.Key(), b.String())
			assert.Empty(t, b.TimesUS, "%s %s: not measured", en.Key(), b.String())
		}
	}
}

// slowFirstCheck is a Measurer whose first gate call takes wait.
type slowFirstCheck struct {
	tuning.Measurer
	wait time.Duration
	once sync.Once
}

func (s *slowFirstCheck) Check(w tuning.Weight, m int, c tuning.Candidate) error {
	s.once.Do(func() { time.Sleep(s.wait) })
	return s.Measurer.Check(w, m, c)
}

func TestTuneMRange(t *testing.T) {
	cfg := testConfig(t, qkv)
	cfg.MinM, cfg.MaxM = 17, 512
	bf16 := dispatch.Types{In: dispatch.BF16, Out: dispatch.BF16}
	kept := func(n, k int) dispatch.Entry {
		e := dispatch.Entry{Arch: dispatch.SM90, Types: bf16, Layout: "tn", N: n, K: k}
		for _, b := range dispatch.GeometricBuckets(8192) {
			b.Kernel, b.SplitK = "t90_any", 1
			e.Buckets = append(e.Buckets, b)
		}
		return e
	}
	base := &dispatch.Table{Provenance: dispatch.Provenance{Source: "base"}, Entries: []dispatch.Entry{kept(0, 0), kept(6144, 4096)}}
	res, err := tuning.Tune(cfg, []tuning.Measurer{tuningtest.NewGPU()}, base)
	require.NoError(t, err)
	assert.Len(t, res.Spans, 5, "[17, 32] … [257, 512]")
	require.Len(t, res.Entries, 2, "qkv and the default")
	for _, e := range res.Entries {
		want := kept(e.N, e.K)
		require.Len(t, e.Buckets, len(want.Buckets), e.Key())
		for i, b := range e.Buckets {
			if b.MinM >= 17 && b.MaxM != 0 && b.MaxM <= 512 {
				assert.NotEmpty(t, b.TimesUS, "%s %s: tuned", e.Key(), b.String())
				assert.Equal(t, want.Buckets[i].MinM, b.MinM)
				continue
			}
			wb := want.Buckets[i]
			wb.Stamp(&want) // the base's entry's source: the model's (no times)
			assert.Equal(t, wb, b, "%s %s: the base's, with its source", e.Key(), b.String())
		}
		// marked measured on the tuning card, the kept buckets still say
		// they are the model's
		m := tuning.Measured([]dispatch.Entry{e}, dispatch.H200)[0]
		for _, b := range m.Buckets {
			src, dev, _ := b.From(&m)
			tuned := b.MinM >= 17 && b.MaxM != 0 && b.MaxM <= 512
			assert.Equal(t, map[bool]string{true: dispatch.SourceMeasured, false: dispatch.SourceModel}[tuned], src, "%s %s", e.Key(), b.String())
			assert.Equal(t, "NVIDIA H200", dev, "%s %s", e.Key(), b.String())
			assert.Equal(t, tuned, b.Source == "", "%s %s: its own source only where it is not the entry's", e.Key(), b.String())
		}
	}
	for _, c := range res.Choices {
		assert.True(t, c.Bucket.MinM >= 17 && c.Bucket.MaxM != 0 && c.Bucket.MaxM <= 512, "%s %s: a choice outside the range", c.Key, c.Bucket.String())
	}
	// a base bucket across the range's edges keeps its choice outside them,
	// with the times measured there
	wide := base.Clone()
	wide.Entries[1].Buckets = []dispatch.Bucket{{MinM: 1, Kernel: "t90_any", SplitK: 1, TimesUS: map[int]float64{1: 5, 600: 7}}}
	res, err = tuning.Tune(cfg, []tuning.Measurer{tuningtest.NewGPU()}, wide)
	require.NoError(t, err)
	var qkvEntry dispatch.Entry
	for _, e := range res.Entries {
		if e.N == 6144 {
			qkvEntry = e
		}
	}
	bs := qkvEntry.Buckets
	require.Len(t, bs, 7, "[1, 16], five tuned, [513, ∞)")
	assert.Equal(t, dispatch.Bucket{MinM: 1, MaxM: 16, Kernel: "t90_any", SplitK: 1, TimesUS: map[int]float64{1: 5}, Source: dispatch.SourceMeasured}, bs[0])
	assert.Equal(t, dispatch.Bucket{MinM: 513, Kernel: "t90_any", SplitK: 1, TimesUS: map[int]float64{600: 7}, Source: dispatch.SourceMeasured}, bs[6])
	gap := base.Clone()
	gap.Entries[1].Buckets = []dispatch.Bucket{{MinM: 1, MaxM: 8, Kernel: "t90_any", SplitK: 1}, {MinM: 20, Kernel: "t90_any", SplitK: 1}}
	_, err = tuning.Tune(cfg, []tuning.Measurer{tuningtest.NewGPU()}, gap)
	assert.ErrorContains(t, err, "do not meet the tuned M = 17…512")
}

func TestConfigValidate(t *testing.T) {
	cat, err := tuningtest.Catalog()
	require.NoError(t, err)
	good := tuning.DefaultConfig(cat, []tuning.Weight{qkv})
	require.NoError(t, good.Validate())
	for field, mut := range map[string]func(*tuning.Config){
		"Catalog": func(c *tuning.Config) { c.Catalog = nil },
		"Weights": func(c *tuning.Config) { c.Weights = nil },
		"MaxM":    func(c *tuning.Config) { c.MaxM = 1000 },
		"MinM":    func(c *tuning.Config) { c.MinM = 20 },
		"MinM ":   func(c *tuning.Config) { c.MinM = 16385 }, // above MaxM
		"MinM  ":  func(c *tuning.Config) { c.MinM = -1 },
		"Splits":  func(c *tuning.Config) { c.Splits = []int{0} },
		"Splits ": func(c *tuning.Config) { c.Splits = []int{1, 2, 1} }, // each candidate was measured once per repeat
		"Keep":    func(c *tuning.Config) { c.Keep = 0.5 },
	} {
		c := good
		mut(&c)
		var ce *tuning.ConfigError
		require.ErrorAs(t, c.Validate(), &ce, field)
		assert.Equal(t, strings.TrimSpace(field), ce.Field)
	}
}

// The model measurer predicts a run without a GPU and, over the embedded
// kernels, leaves no bucket of a Llama-3-8B weight without a kernel.
func TestModelMeasurer(t *testing.T) {
	cat, err := dispatch.DefaultCatalog()
	require.NoError(t, err)
	base, err := dispatch.DefaultTable()
	require.NoError(t, err)
	ws, err := tuning.ModelWeights("llama3-8b", []dispatch.Types{tuningtest.Types("bf16")})
	require.NoError(t, err)
	cfg := tuning.DefaultConfig(cat, ws)
	mm := tuning.NewModelMeasurer(dispatch.H200, cat, cfg.MaxM)
	res, err := tuning.Tune(&cfg, []tuning.Measurer{mm}, base)
	require.NoError(t, err)
	assert.Len(t, res.Entries, 5)
	p := mm.Prediction()
	assert.Positive(t, p.Checks)
	assert.Positive(t, p.Timings)
	assert.Greater(t, p.Seconds, p.CheckSeconds)
	assert.Len(t, p.BySpan, 14)
	_, err = mm.Time(qkv, 1, cand{Kernel: "nope", SplitK: 1}, 1)
	assert.ErrorContains(t, err, `kernel "nope" is not in the manifest`)
}

func TestModelPresetsMatchTheRepoShapes(t *testing.T) {
	ws, err := tuning.ModelWeights("llama3-8b", []dispatch.Types{tuningtest.Types("bf16")})
	require.NoError(t, err)
	// The Llama-3-8B rows of the repo's shapes file (the names and columns
	// of scripts/shapes-llama3-8b.csv), so tune's points and the
	// peer's line up.
	shapes, err := tuning.ReadShapes("../../scripts/shapes-decode.csv")
	require.NoError(t, err)
	shapes = slices.DeleteFunc(shapes, func(s tuning.Shape) bool { return !strings.HasPrefix(s.Name, "l3-8b.") })
	assert.ElementsMatch(t, tuning.WeightsFromShapes(shapes, nil), ws)
	_, err = tuning.ModelWeights("gpt-5", nil)
	assert.ErrorContains(t, err, "llama3-8b")
	types, err := tuning.ParseTypesList("bf16, e4m3→bf16/row,,e4m3->f16,bf16")
	require.NoError(t, err)
	assert.Equal(t, []dispatch.Types{tuningtest.Types("bf16"), tuningtest.Types("e4m3→bf16/row"), tuningtest.Types("e4m3→f16")}, types, "each once, in order")
	_, err = tuning.ParseTypesList("bf16,e4m3")
	var te *kernels.TypesError
	require.ErrorAs(t, err, &te)
	assert.Equal(t, "e4m3", te.Text)
}

// An e4m3 weight is tuned in its types, scaling included: candidates are
// the e4m3 kernels that take its scaling (per-tensor and per-row: not the
// 128-block-only kernel, though the fake times it faster; 128-block: only
// that one), and the entries, keyed by the types, load.
func TestTuneE4M3(t *testing.T) {
	for _, c := range []struct{ types, kernel string }{
		{"e4m3→bf16", "t90_fp8"},
		{"e4m3→bf16/row", "t90_fp8"},
		{"e4m3→bf16/block128", "t90_fp8b"},
	} {
		ty := tuningtest.Types(c.types)
		w := tuning.Weight{Name: "l3-8b.o", Types: ty, N: 4096, K: 4096}
		cfg := testConfig(t, w)
		cfg.MaxM = 64
		gpu := tuningtest.NewGPU()
		res, err := tuning.Tune(cfg, []tuning.Measurer{gpu}, &dispatch.Table{})
		require.NoError(t, err, c.types)
		require.Len(t, res.Entries, 2, "%s: the weight's and the default", c.types)
		for _, e := range res.Entries {
			assert.Equal(t, ty, e.Types, c.types)
			for _, b := range e.Buckets {
				assert.Equal(t, c.kernel, b.Kernel, c.types)
			}
		}
		assert.Equal(t, dispatch.EntryKey{Arch: dispatch.SM90, Types: ty, Layout: "tn", N: 4096, K: 4096}, w.Key(dispatch.SM90))
		require.NotEmpty(t, gpu.Gated, c.types)
		for _, g := range gpu.Gated {
			assert.Equal(t, c.kernel, g.Kernel, "%s: only the e4m3 kernels that take its scaling are gated", c.types)
		}
		_, _, err = tuning.Merge(&dispatch.Table{}, tuning.Provenance(cfg.Catalog, dispatch.H200, "", tuning.Method), tuning.Measured(res.Entries, dispatch.H200), cfg.Catalog, false)
		require.NoError(t, err, "%s: the entries load", c.types)
	}
}

// WeightsFromShapes de-duplicates in linear time: 80 000 distinct weights
// took ~6 s by the pairwise check (240 000: 53 s), a few ms by a set.
func TestWeightsFromShapesManyDistinct(t *testing.T) {
	shapes := make([]tuning.Shape, 40_000)
	for i := range shapes {
		shapes[i] = tuning.Shape{Name: "w", M: 1, N: 1 + i, K: 64, Types: tuningtest.Types("bf16")}
	}
	shapes = append(shapes, shapes[:1000]...)
	start := time.Now()
	ws := tuning.WeightsFromShapes(shapes, []dispatch.Types{tuningtest.Types("bf16"), tuningtest.Types("f16"), tuningtest.Types("bf16")})
	assert.Less(t, time.Since(start), 3*time.Second)
	require.Len(t, ws, 80_000)
	assert.Equal(t, tuning.Weight{Name: "w", Types: tuningtest.Types("f16"), N: 1, K: 64}, ws[1], "in the order of first appearance")
}

func TestReadShapesTheSharedFormat(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shapes.csv")
	require.NoError(t, os.WriteFile(path, []byte("name,M,N,K,dtype\nqkv,1,6144,4096,bf16\no,16,4096,4096,fp16\nx,2,8,8,\n"), 0o644))
	got, err := tuning.ReadShapes(path)
	require.NoError(t, err)
	assert.Equal(t, []tuning.Shape{{Name: "qkv", M: 1, N: 6144, K: 4096, Types: tuningtest.Types("bf16")}, {Name: "o", M: 16, N: 4096, K: 4096, Types: tuningtest.Types("f16")}, {Name: "x", M: 2, N: 8, K: 8, Types: tuningtest.Types("bf16")}}, got)

	// e4m3 shapes name their scaling (per-tensor when empty); 16-bit ones take none.
	require.NoError(t, os.WriteFile(path, []byte("name,M,N,K,dtype,scaling\nd,1,4096,14336,e4m3,row\nd,1,4096,14336,e4m3,\nd,1,4096,14336,e4m3,block128\nq,2,8,8,bf16,tensor\n"), 0o644))
	got, err = tuning.ReadShapes(path)
	require.NoError(t, err)
	d := tuning.Shape{Name: "d", M: 1, N: 4096, K: 14336, Types: tuningtest.Types("e4m3→bf16")}
	row, block := d, d
	row.Types.Scaling, block.Types.Scaling = dispatch.ScalingRow, dispatch.ScalingBlock
	assert.Equal(t, []tuning.Shape{row, d, block, {Name: "q", M: 2, N: 8, K: 8, Types: tuningtest.Types("bf16")}}, got)
	require.NoError(t, os.WriteFile(path, []byte("name,M,N,K,dtype,scaling\nq,2,8,8,bf16,row\n"), 0o644))
	_, err = tuning.ReadShapes(path)
	assert.ErrorContains(t, err, "shapes.csv:2: gemmroute: types: row: bf16 inputs take no scales")
	require.NoError(t, os.WriteFile(path, []byte("name,M,N,K,dtype,scaling\nd,1,8,8,e4m3,block64\n"), 0o644))
	_, err = tuning.ReadShapes(path)
	assert.ErrorContains(t, err, `shapes.csv:2: gemmroute: invalid argument: unknown scaling "block64"`)

	require.NoError(t, os.WriteFile(path, []byte("name,M,N,K\nqkv,one,6144,4096\n"), 0o644))
	_, err = tuning.ReadShapes(path)
	assert.ErrorContains(t, err, "shapes.csv:2")
	require.NoError(t, os.WriteFile(path, []byte("name,M,N\nqkv,1,6144\n"), 0o644))
	_, err = tuning.ReadShapes(path)
	assert.ErrorContains(t, err, `no "K" column`)
}

// A run accounts for every measurer call by phase and by bucket: as many
// gate calls as the GPU gated, as many timing calls (all phases) as it
// timed, each with its wall time (the fake GPU sleeps a millisecond a timing).
func TestTuneSpent(t *testing.T) {
	cfg := testConfig(t, qkv)
	cfg.MaxM = 64
	gpu := tuningtest.NewGPU()
	gpu.Delay = time.Millisecond
	res, err := tuning.Tune(cfg, []tuning.Measurer{gpu}, nil)
	require.NoError(t, err)
	byPhase, bySpan := res.Spent()
	calls := map[string]int{}
	timed := 0
	for _, s := range byPhase {
		calls[s.Phase] = s.Calls
		if s.Phase != "gate" {
			timed += s.Calls
			assert.GreaterOrEqual(t, s.Seconds, float64(s.Calls)*1e-3, "%s: at least the GPU's delay per call", s.Phase)
		}
	}
	assert.Equal(t, len(gpu.Gated), calls["gate"])
	assert.Equal(t, "gate", byPhase[0].Phase, "in the order the run goes through them")
	assert.Equal(t, len(gpu.Timed), timed)
	assert.Contains(t, calls, "full")
	assert.Contains(t, calls, "events")
	assert.Len(t, bySpan, len(cfg.Spans()))
}
