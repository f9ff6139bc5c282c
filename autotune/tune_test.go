package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gemmroute/gemmroute/dispatch"
	"github.com/gemmroute/gemmroute/kernels"
)

// tuneManifest has sm_90 kernels of four kinds and one sm_80 kernel the
// tuner must not time on an sm_90 device (not native there):
//
//	t90_row:   1 token per block, fast at M = 1, hopeless at large M
//	t90_mma:   16×64 tiles, split-K up to 8
//	t90_big:   128×128 tiles, for large M
//	t90_wrong: fast everywhere but wrong: the gate must throw it out
//	t90_any:   2-byte alignment, the only one for odd N and K
//	t80_mma:   the sm_80 image
func tuneManifest() kernels.Manifest {
	// The analytic model's view of each family, as the generator writes it.
	models := map[string]kernels.Model{
		"decode_fma": {Kind: kernels.ModelDecode, RateShare: 1.0 / 12, StreamShare: 1, RasterGroup: 1},
		"decode_mma": {Kind: kernels.ModelDecode, RateShare: 0.25, StreamShare: 1, RasterGroup: 1},
		"tiled_mma":  {Kind: kernels.ModelTiled, RateShare: 0.45, StreamShare: 0.8, RasterGroup: 8},
	}
	k := func(name, image, family string, arch dispatch.Arch, tm, tn, split, align int) kernels.KernelSpec {
		s := kernels.KernelSpec{Name: name, Image: image, Family: family, MinArch: arch, In: dispatch.BF16, Out: dispatch.BF16,
			Layout: kernels.LayoutTN, TileM: tm, TileN: tn, TileK: 64, Stages: 2, Threads: 128,
			PtrAlign: align, LDAlign: align, KMultiple: align / 2, MaxSplitK: split, Reduction: kernels.ReduceNone,
			IndexBits: 64, LoadBytes: 64, Model: models[family]}
		if split > 1 {
			s.Reduction, s.ReduceKernel = kernels.ReduceWorkspace, "reduce"
		}
		return s
	}
	return kernels.Manifest{Schema: kernels.SchemaVersion, Images: []kernels.Image{{File: "sm90.fatbin", SmemLimit: 227 << 10}, {File: "sm80.fatbin", SmemLimit: 227 << 10}},
		Kernels: []kernels.KernelSpec{
			k("t90_row", "sm90.fatbin", "decode_fma", dispatch.SM90, 1, 64, 1, 16),
			k("t90_mma", "sm90.fatbin", "decode_mma", dispatch.SM90, 16, 64, 8, 16),
			k("t90_big", "sm90.fatbin", "tiled_mma", dispatch.SM90, 128, 128, 1, 16),
			k("t90_wrong", "sm90.fatbin", "decode_mma", dispatch.SM90, 16, 64, 1, 16),
			k("t90_any", "sm90.fatbin", "decode_fma", dispatch.SM90, 4, 64, 1, 2),
			k("t80_mma", "sm80.fatbin", "decode_mma", dispatch.SM80, 16, 64, 1, 16),
		}}
}

func tuneCatalog(t *testing.T) *kernels.Catalog {
	cat, err := kernels.NewCatalog(tuneManifest())
	require.NoError(t, err)
	return cat
}

// fakeGPU is an injected measurer: times come from a formula, t90_wrong
// fails every check, and calls are recorded.
type fakeGPU struct {
	dev   dispatch.DeviceInfo
	speed func(w weight, m int, c candidate) float64 // µs
	noisy map[candidate]int                          // the first n timings of c have a p90 twice the median
	fail  error                                      // returned by every timing once set
	delay time.Duration

	mu     sync.Mutex
	gated  []candidate
	timed  []timeCall
	noises map[candidate]int
}

type timeCall struct {
	w    weight
	m    int
	c    candidate
	reps int
}

func newFakeGPU() *fakeGPU {
	return &fakeGPU{dev: dispatch.H200, speed: fakeSpeed, noises: map[candidate]int{}}
}

// fakeSpeed: t90_row wins at M = 1, t90_mma in the teens, t90_big at large
// M; split-K 4 helps t90_mma at small M; t90_wrong is fastest of all.
func fakeSpeed(w weight, m int, c candidate) float64 {
	work := float64(w.n) * float64(w.k) / (4096 * 4096)
	var t float64
	switch c.kernel {
	case "t90_row":
		t = 8 * work * float64(m)
	case "t90_mma":
		t = 10*work*math.Ceil(float64(m)/16) + 1
		if c.split == 4 && m <= 16 {
			t *= 0.9
		} else if c.split > 1 {
			t *= 1.2 + 0.01*float64(c.split)
		}
	case "t90_big":
		t = 30*work*math.Ceil(float64(m)/128) + 5
	case "t90_wrong":
		t = 1
	case "t90_any":
		t = 12 * work * math.Ceil(float64(m)/4)
	}
	return t
}

func (f *fakeGPU) device() dispatch.DeviceInfo { return f.dev }

func (f *fakeGPU) gate(w weight, m int, c candidate) error {
	f.mu.Lock()
	f.gated = append(f.gated, c)
	f.mu.Unlock()
	if c.kernel == "t90_wrong" {
		return fmt.Errorf("%w: D[3,17] = 1.5, want 0.25", errWrong)
	}
	return nil
}

func (f *fakeGPU) time(w weight, m int, c candidate, reps int) (timing, error) {
	time.Sleep(f.delay)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fail != nil {
		return timing{}, f.fail
	}
	f.timed = append(f.timed, timeCall{w, m, c, reps})
	med := f.speed(w, m, c)
	if f.noises[c] < f.noisy[c] {
		f.noises[c]++
		return timing{med, 2 * med}, nil
	}
	return timing{med, 1.01 * med}, nil
}

func (f *fakeGPU) events(w weight, m int, c candidate, calls int) (timing, error) {
	t, err := f.time(w, m, c, calls)
	return timing{t.med + 5, t.p90 + 6}, err
}

func testConfig(t *testing.T, ws ...weight) *tuneConfig {
	return &tuneConfig{cat: tuneCatalog(t), weights: ws, maxM: 8192, splits: []int{1, 2, 4, 8}, workspace: 256 << 20,
		screenReps: 3, reps: 20, eventCalls: 50, keep: 1.3, tie: 0.02, noise: 0.05}
}

var qkv = weight{"l3-8b.qkv", dispatch.BF16, 6144, 4096}

func TestSpans(t *testing.T) {
	sp := spans(16)
	assert.Equal(t, []span{{1, 1}, {2, 2}, {3, 4}, {5, 8}, {9, 16}}, sp)
	assert.Equal(t, []int{1, 2, 4, 8, 16}, edges(sp))
	assert.Equal(t, []int{1}, span{1, 1}.gateMs())
	assert.Equal(t, []int{3, 4}, span{3, 4}.gateMs())
	assert.Equal(t, []int{9, 16, 15}, span{9, 16}.gateMs())
	assert.Equal(t, 0, span{3, 4}.probeM())
	assert.Equal(t, 6, span{5, 8}.probeM())
	assert.Equal(t, 5793, span{4097, 8192}.probeM())
	assert.Len(t, spans(8192), 14)
}

func TestCandidatesNativeImageConstraintsAndWorkspace(t *testing.T) {
	cfg := testConfig(t)
	cands, pruned := cfg.candidates(dispatch.H200, qkv, span{9, 16})
	assert.Empty(t, pruned) // prune 0: time everything
	assert.NotContains(t, cands, candidate{"t80_mma", 1}, "the sm_80 image is not native on sm_90")
	assert.Contains(t, cands, candidate{"t90_mma", 8})
	assert.NotContains(t, cands, candidate{"t90_big", 2}, "t90_big has no split-K")

	// Odd N and K: only the 2-byte kernel qualifies.
	odd := weight{"odd", dispatch.BF16, 769, 5125}
	cands, _ = cfg.candidates(dispatch.H200, odd, span{9, 16})
	assert.Equal(t, []candidate{{"t90_any", 1}}, cands)

	// A split whose workspace exceeds the reserve is not tried.
	cfg.workspace = 4 * 16 * 6144 * 4 // split-K 4 at M = 16 fits, 8 does not
	cands, _ = cfg.candidates(dispatch.H200, qkv, span{9, 16})
	assert.Contains(t, cands, candidate{"t90_mma", 4})
	assert.NotContains(t, cands, candidate{"t90_mma", 8})

	// The model prunes the 1-token kernel at large M and keeps the big tile.
	cfg = testConfig(t)
	cfg.prune = 4
	cands, pruned = cfg.candidates(dispatch.H200, qkv, span{4097, 8192})
	assert.Contains(t, pruned, candidate{"t90_row", 1})
	assert.Contains(t, cands, candidate{"t90_big", 1})
}

func TestTuneSpanRejectsFastWrongKernel(t *testing.T) {
	cfg := testConfig(t, qkv)
	gpu := newFakeGPU()
	r, err := cfg.tuneSpan(gpu, qkv, span{9, 16})
	require.NoError(t, err)
	require.Len(t, r.rejects, 1)
	assert.Equal(t, candidate{"t90_wrong", 1}, r.rejects[0].c)
	assert.Equal(t, 9, r.rejects[0].m, "rejected at the first gate M")
	assert.Contains(t, r.rejects[0].why, "D[3,17]")
	for _, call := range gpu.timed {
		assert.NotEqual(t, "t90_wrong", call.c.kernel, "a wrong kernel is never timed")
	}
	// Every passed candidate was gated at 9, 16 and 15.
	assert.Equal(t, 3*(len(r.passed))+1, len(gpu.gated))
	assert.NotContains(t, r.passed, candidate{"t90_wrong", 1})
}

func TestTuneSpanScreensKeepsAndProbes(t *testing.T) {
	cfg := testConfig(t, qkv)
	gpu := newFakeGPU()
	r, err := cfg.tuneSpan(gpu, qkv, span{9, 16})
	require.NoError(t, err)
	// At M = 9…16 t90_mma split 4 is fastest (9.9·0.9 µs at both edges);
	// t90_row (72–128 µs) and t90_big (35 µs) are screened out.
	assert.Contains(t, r.kept, candidate{"t90_mma", 4})
	assert.NotContains(t, r.kept, candidate{"t90_row", 1})
	assert.NotContains(t, r.kept, candidate{"t90_big", 1})
	for _, c := range r.kept {
		assert.Contains(t, r.times[9], c)
		assert.Contains(t, r.times[16], c)
		assert.Contains(t, r.probe, c, "kept candidates are timed at the held-out M")
	}
	assert.Equal(t, 12, span{9, 16}.probeM())
	var phases []string
	for _, l := range r.log {
		if !slices.Contains(phases, l.phase) {
			phases = append(phases, l.phase)
		}
	}
	assert.Equal(t, []string{"screen", "full", "probe"}, phases)
	for _, call := range gpu.timed {
		if call.m == 12 {
			assert.Equal(t, 20, call.reps)
		}
	}
}

func TestTuneSpanRetimesNearTiesAndNoise(t *testing.T) {
	cfg := testConfig(t, qkv)
	gpu := newFakeGPU()
	// Two candidates 1 % apart at M = 1, and t90_row noisy on its first timings.
	gpu.speed = func(w weight, m int, c candidate) float64 {
		switch c {
		case candidate{"t90_row", 1}:
			return 10
		case candidate{"t90_mma", 1}:
			return 10.1
		}
		return 50
	}
	gpu.noisy = map[candidate]int{{"t90_row", 1}: 2} // screen and full timings are noisy
	r, err := cfg.tuneSpan(gpu, qkv, span{1, 1})
	require.NoError(t, err)
	assert.Equal(t, []candidate{{"t90_mma", 1}, {"t90_row", 1}}, r.retimed)
	retimes := 0
	for _, call := range gpu.timed {
		if call.reps == 60 {
			retimes++
			assert.Contains(t, r.retimed, call.c)
		}
	}
	assert.Equal(t, 2, retimes, "each near-tie once at the bucket's one M, with 3× the replays")
	assert.InDelta(t, 0.01, r.times[1][candidate{"t90_row", 1}].dispersion(), 1e-9, "the re-timing replaced the noisy one")

	// A candidate noisy every time stays flagged in the report.
	gpu = newFakeGPU()
	gpu.noisy = map[candidate]int{{"t90_mma", 4}: 100}
	r, err = cfg.tuneSpan(gpu, qkv, span{9, 16})
	require.NoError(t, err)
	assert.Contains(t, r.retimed, candidate{"t90_mma", 4})
	rep := tuneReport{cfg: cfg, results: []*spanResult{r}}
	var md strings.Builder
	rep.notes(&md)
	assert.Contains(t, md.String(), "t90_mma split-K 4`: median")
}

func TestTuneSpanStopsOnDeviceError(t *testing.T) {
	cfg := testConfig(t, qkv)
	gpu := newFakeGPU()
	gpu.fail = errors.New("CUDA_ERROR_ILLEGAL_ADDRESS")
	_, err := cfg.tuneSpan(gpu, qkv, span{9, 16})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "CUDA_ERROR_ILLEGAL_ADDRESS")
	assert.Contains(t, err.Error(), "l3-8b.qkv M=9")
}

func TestFillTimesDefaultContendersOnEveryAlignedWeight(t *testing.T) {
	a := &spanResult{w: qkv, sp: span{1, 1}, passed: []candidate{{"x", 1}, {"y", 1}}, kept: []candidate{{"x", 1}}}
	b := &spanResult{w: weight{"o", dispatch.BF16, 4096, 4096}, sp: span{1, 1}, passed: []candidate{{"x", 1}, {"y", 1}}, kept: []candidate{{"y", 1}}}
	odd := &spanResult{w: weight{"odd", dispatch.BF16, 769, 5125}, sp: span{1, 1}, passed: []candidate{{"z", 1}}, kept: []candidate{{"z", 1}}}
	f := fillUnits([]*spanResult{a, b, odd})
	assert.Equal(t, []candidate{{"y", 1}}, f[a])
	assert.Equal(t, []candidate{{"x", 1}}, f[b])
	assert.NotContains(t, f, odd, "unaligned weights neither shape nor join the default")
}

func TestRunUnitsSpreadsWorkAndStopsAtFirstError(t *testing.T) {
	g0, g1 := newFakeGPU(), newFakeGPU()
	var mu sync.Mutex
	seen := map[int]int{}
	used := map[measurer]bool{}
	err := runUnits([]measurer{g0, g1}, 20, func() {}, func(m measurer, i int) error {
		time.Sleep(time.Millisecond)
		mu.Lock()
		defer mu.Unlock()
		seen[i]++
		used[m] = true
		return nil
	})
	require.NoError(t, err)
	assert.Len(t, seen, 20)
	for i, n := range seen {
		assert.Equal(t, 1, n, "unit %d", i)
	}
	assert.Len(t, used, 2)

	calls := 0
	err = runUnits([]measurer{g0}, 20, func() {}, func(m measurer, i int) error {
		calls++
		if i == 3 {
			return errors.New("boom")
		}
		return nil
	})
	assert.EqualError(t, err, "boom")
	assert.Equal(t, 4, calls)
}

func TestModelPresetsMatchTheRepoShapes(t *testing.T) {
	ws, err := weightsOf("llama3-8b", []dispatch.DType{dispatch.BF16})
	require.NoError(t, err)
	// The Llama-3-8B rows of the repo's shapes file (the names and columns
	// of ../shared/gpu/shapes-llama3-8b.csv), so tune's points and the
	// peer's line up.
	shapes, err := readShapes("../scripts/shapes-decode.csv")
	require.NoError(t, err)
	shapes = slices.DeleteFunc(shapes, func(s shape) bool { return !strings.HasPrefix(s.name, "l3-8b.") })
	assert.ElementsMatch(t, weightsFromShapes(shapes, nil), ws)
	_, err = weightsOf("gpt-5", nil)
	assert.ErrorContains(t, err, "llama3-8b")
	_, err = parseDTypes("bf16,e4m3")
	assert.ErrorContains(t, err, "bf16 and f16")
}

// tuneBase has an sm_80 default, an sm_90 entry for a shape no test tunes
// (both must survive a merge) and a stale sm_90 qkv entry (to be replaced).
const tuneBase = `provenance:
  source: test
entries:
  - arch: sm_80
    in: bf16
    out: bf16
    layout: tn
    buckets:
      - min_m: 1
        kernel: t80_mma
        split_k: 1
  - arch: sm_90
    in: bf16
    out: bf16
    layout: tn
    n: 1024
    k: 1024
    buckets:
      - min_m: 1
        kernel: t90_big
        split_k: 1
  - arch: sm_90
    in: bf16
    out: bf16
    layout: tn
    n: 6144
    k: 4096
    buckets:
      - min_m: 1
        kernel: t90_any
        split_k: 1
`

// tuneFiles writes the test manifest and the base table.
func tuneFiles(t *testing.T) (dir, manifest, base string) {
	dir = t.TempDir()
	data, err := json.Marshal(tuneManifest())
	require.NoError(t, err)
	manifest, base = filepath.Join(dir, "manifest.json"), filepath.Join(dir, "base.yaml")
	require.NoError(t, os.WriteFile(manifest, data, 0o644))
	require.NoError(t, os.WriteFile(base, []byte(tuneBase), 0o644))
	return dir, manifest, base
}

// withGPUs injects measurers into the tune command.
func withGPUs(t *testing.T, gpus ...*fakeGPU) {
	old := openMeasurers
	t.Cleanup(func() { openMeasurers = old })
	openMeasurers = func(devices []int, workspace int64) ([]measurer, func(), error) {
		require.Len(t, devices, len(gpus))
		ms := make([]measurer, len(gpus))
		for i, g := range gpus {
			ms[i] = g
		}
		return ms, func() {}, nil
	}
}

func TestTuneCommandWritesTableAndReport(t *testing.T) {
	dir, manifest, base := tuneFiles(t)
	shapes := filepath.Join(dir, "shapes.csv")
	require.NoError(t, os.WriteFile(shapes, []byte("name,M,N,K\nqkv,1,6144,4096\no,1,4096,4096\nodd,1,769,5125\n"), 0o644))
	peer := filepath.Join(dir, "peer.csv")
	require.NoError(t, os.WriteFile(peer, []byte("name,M,N,K,graph_us\nqkv,1,6144,4096,20\nqkv,4096,6144,4096,900\n"), 0o644))
	out, rep := filepath.Join(dir, "buckets.yaml"), filepath.Join(dir, "report")
	withGPUs(t, newFakeGPU(), newFakeGPU())
	code, stdout, stderr := runCLI("-shapes", shapes, "-max-m", "4096", "-out", out, "-base", base, "-manifest", manifest,
		"-report", rep, "-peer", peer, "-devices", "0,1", "-driver", "580.1", "-prune", "0")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "wrote "+out)
	assert.Contains(t, stderr, "tune", "the progress bar goes to stderr")

	cat := tuneCatalog(t)
	tab, err := loadTableFile(out, cat)
	require.NoError(t, err)
	assert.Equal(t, "measured", tab.Provenance.Source)
	assert.Equal(t, "580.1", tab.Provenance.Driver)
	assert.Equal(t, "sm_90", tab.Provenance.Arch)
	exact, def := tab.Find(dispatch.SM90, dispatch.BF16, dispatch.BF16, 6144, 4096)
	require.NotNil(t, exact)
	require.NotNil(t, def)
	// Merged: the base's other entries kept, its stale qkv entry replaced.
	_, sm80 := tab.Find(dispatch.SM80, dispatch.BF16, dispatch.BF16, 6144, 4096)
	require.NotNil(t, sm80)
	assert.Equal(t, "t80_mma", sm80.Bucket(1).Kernel)
	kept, _ := tab.Find(dispatch.SM90, dispatch.BF16, dispatch.BF16, 1024, 1024)
	require.NotNil(t, kept)
	assert.Equal(t, "t90_big", kept.Bucket(1).Kernel)
	assert.Len(t, tab.Entries, 6, "sm_80 default, 1024×1024, and the tuned qkv, o, odd and default")
	// Bucket assignment follows fakeSpeed: 1 token → t90_row, teens →
	// t90_mma split-K 4, large M → t90_big; beyond 4096 the last bucket.
	assert.Equal(t, "t90_row", exact.Bucket(1).Kernel)
	assert.Equal(t, "t90_mma", exact.Bucket(12).Kernel)
	assert.Equal(t, 4, exact.Bucket(12).SplitK)
	assert.Equal(t, "t90_big", exact.Bucket(4096).Kernel)
	assert.Equal(t, "t90_big", exact.Bucket(100000).Kernel)
	assert.NotEmpty(t, exact.Bucket(4096).TimesUS)
	assert.Equal(t, "t90_big", def.Bucket(4096).Kernel)
	odd, _ := tab.Find(dispatch.SM90, dispatch.BF16, dispatch.BF16, 769, 5125)
	require.NotNil(t, odd)
	assert.Equal(t, "t90_any", odd.Bucket(64).Kernel)
	for _, b := range append(append(exact.Buckets, def.Buckets...), odd.Buckets...) {
		assert.NotEqual(t, "t90_wrong", b.Kernel)
	}

	md, err := os.ReadFile(filepath.Join(rep, "tune.md"))
	require.NoError(t, err)
	for _, s := range []string{"# Tuning on NVIDIA H200", "## Choices", "## Bucket loss, held out", "## The choices, timed",
		"| qkv bf16 | 1 | 12.00 (12.12) | 17.00 (18.12) |", "Against cuBLAS over 2 points", "- `t90_wrong split-K 1`, at 26 Ms (qkv bf16 M=1, ",
		"the first: wrong result: D[3,17]", "roofline-qkv-bf16.png"} {
		assert.Contains(t, string(md), s)
	}
	csvData, err := os.ReadFile(filepath.Join(rep, "tune.csv"))
	require.NoError(t, err)
	assert.Contains(t, string(csvData), `t90_wrong,1,,,"wrong: wrong result: D[3,17]`)
	assert.Contains(t, string(csvData), "qkv,1,6144,4096,bf16,t90_row,1,17.000,18.120,ok,events")
	for _, png := range []string{"roofline-qkv-bf16.png", "roofline-o-bf16.png", "roofline-odd-bf16.png"} {
		assert.FileExists(t, filepath.Join(rep, png))
	}
	// autotune table reads the run's CSV.
	code, _, stderr = runCLI("table", "-sweep", filepath.Join(rep, "tune.csv"), "-out", filepath.Join(dir, "again.yaml"),
		"-base", base, "-manifest", manifest)
	assert.Equal(t, 0, code, stderr)
}

func TestTuneInterruptedLeavesOldTable(t *testing.T) {
	dir, manifest, base := tuneFiles(t)
	out := filepath.Join(dir, "buckets.yaml")
	old := []byte("provenance:\n  source: old\nentries: []\n")
	require.NoError(t, os.WriteFile(out, old, 0o644))
	gpu := newFakeGPU()
	gpu.fail = errors.New("CUDA_ERROR_LAUNCH_FAILED")
	withGPUs(t, gpu)
	code, _, stderr := runCLI("-model", "llama3-8b", "-max-m", "16", "-out", out, "-base", base, "-manifest", manifest)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "CUDA_ERROR_LAUNCH_FAILED")
	got, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Equal(t, old, got)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 3, "no temporary file left behind")
}

func TestTuneCommandUsageAndDevices(t *testing.T) {
	dir, manifest, base := tuneFiles(t)
	for _, c := range []struct {
		args   []string
		phrase string
	}{
		{[]string{"-out", "x"}, "give one of -model and -shapes"},
		{[]string{"-model", "llama3-8b"}, "-out is required"},
		{[]string{"-model", "llama3-8b", "-out", "x", "-max-m", "1000"}, "not a power of two"},
		{[]string{"-model", "llama3-8b", "-out", "x", "-devices", "0,a"}, "-devices"},
		{[]string{"-model", "llama3-8b", "-out", "x", "-splits", "0"}, "-splits"},
		{[]string{"-model", "llama3-8b", "-out", "x", "-keep", "0.5"}, "-keep ≥ 1"},
	} {
		code, _, stderr := runCLI(append([]string{"tune"}, c.args...)...)
		assert.Equal(t, 2, code, c.args)
		assert.Contains(t, stderr, c.phrase)
	}
	// Two kinds of GPU in one run are refused.
	a, b := newFakeGPU(), newFakeGPU()
	b.dev.Name = "NVIDIA A100-SXM4-80GB"
	withGPUs(t, a, b)
	code, _, stderr := runCLI("-model", "llama3-8b", "-out", filepath.Join(dir, "t.yaml"), "-base", base, "-manifest", manifest, "-devices", "0,1")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "one kind of GPU")

	// -write-shapes needs no GPU: the points peer_cublas.py should time.
	pts := filepath.Join(dir, "points.csv")
	code, _, stderr = runCLI("-model", "llama3-8b", "-max-m", "8", "-write-shapes", pts)
	require.Equal(t, 0, code, stderr)
	data, err := os.ReadFile(pts)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(data), "name,M,N,K,dtype\nl3-8b.qkv,1,6144,4096,bf16\nl3-8b.qkv,2,6144,4096,bf16\n"))
	assert.Contains(t, string(data), "l3-8b.down,6,4096,14336,bf16\n", "probe Ms too")
	code, _, stderr = runCLI("-model", "llama3-8b", "-dtypes", "f16", "-max-m", "1", "-write-shapes", pts)
	require.Equal(t, 0, code, stderr)
	data, err = os.ReadFile(pts)
	require.NoError(t, err)
	assert.Contains(t, string(data), "l3-8b.qkv,1,6144,4096,fp16\n", "in peer_cublas.py's spelling")
}

func TestTuneDryRunMeasuresNothingAndWritesNothing(t *testing.T) {
	dir, manifest, base := tuneFiles(t)
	old := openMeasurers
	t.Cleanup(func() { openMeasurers = old })
	openMeasurers = func([]int, int64) ([]measurer, func(), error) {
		t.Fatal("a dry run opened a GPU")
		return nil, nil, nil
	}
	out := filepath.Join(dir, "buckets.yaml")
	code, stdout, stderr := runCLI("-model", "llama3-8b", "-dry-run", "-out", out, "-base", base, "-manifest", manifest, "-devices", "0,1")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "dry run, nothing measured: 4 weights × 14 buckets (M = 1…8192) on 2× NVIDIA H200")
	assert.Regexp(t, `Predicted wall time .*: \d+\.\d min, \d+\.\d min of it gating \(a prediction, not a measurement\)`, stdout)
	assert.NoFileExists(t, out)

	// The embedded catalog and table: every bucket of every Llama-3-8B
	// weight has a kernel.
	code, stdout, stderr = runCLI("-model", "llama3-8b", "-dtypes", "bf16,f16", "-dry-run")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "8 weights × 14 buckets")
	code, _, stderr = runCLI("-model", "llama3-8b", "-dry-run", "-device", "v100")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "unknown device preset")
}

// -model-out writes the model's choices for a device no GPU here can
// measure as heuristic entries (no times, runner-up or margin), merged into
// the base table: the embedded table's measured sm_90 entries stay as they
// were, and the sm_80 default sends M ≤ 16 to the decode families and
// larger M to a tiled kernel.
func TestTuneDryRunModelOut(t *testing.T) {
	out := filepath.Join(t.TempDir(), "buckets.yaml")
	code, stdout, stderr := runCLI("-model", "llama3-8b", "-dry-run", "-device", "a100", "-model-out", out)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "5 sm_80 entries chosen by the model (heuristic: no times_us)")
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	cat, err := dispatch.DefaultCatalog()
	require.NoError(t, err)
	got, err := dispatch.LoadTable(out, data, cat)
	require.NoError(t, err)
	embedded, err := dispatch.DefaultTable()
	require.NoError(t, err)
	assert.Equal(t, embedded.Provenance, got.Provenance)
	var sm80, sm90 int
	for _, e := range got.Entries {
		switch e.Arch {
		case dispatch.SM90:
			sm90++
			i := slices.IndexFunc(embedded.Entries, func(b dispatch.Entry) bool { return sameEntryKey(b, e) })
			require.GreaterOrEqual(t, i, 0)
			assert.Equal(t, embedded.Entries[i].Buckets, e.Buckets)
		case dispatch.SM80:
			if e.In != dispatch.BF16 {
				continue
			}
			sm80++
			for _, b := range e.Buckets {
				assert.Empty(t, b.TimesUS)
				assert.Empty(t, b.RunnerUp)
				assert.Zero(t, b.MarginPct)
				k := cat.Kernel(b.Kernel)
				require.NotNil(t, k, b.Kernel)
				assert.True(t, k.RunsOn(dispatch.SM80), b.Kernel)
				want := "decode"
				if b.MinM > 16 {
					want = "tiled"
				}
				assert.True(t, strings.HasPrefix(k.Family, want), "%s N=%d K=%d %s: %s", e.Arch, e.N, e.K, b.String(), b.Kernel)
			}
		}
	}
	assert.Equal(t, 5, sm80, "a default and four exact bf16 entries")
	assert.Positive(t, sm90)
}
