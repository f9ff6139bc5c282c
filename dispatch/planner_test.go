package dispatch

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gemmroute/gemmroute/kernels"
)

// L4 is an sm_89 device: e4m3 without Hopper-only kernels.
var L4 = DeviceInfo{Name: "NVIDIA L4", Arch: SM89, SMs: 58, L2Bytes: 48 << 20, SmemOptIn: 99 << 10,
	MemBytes: 24 << 30, ReadBandwidth: 0.3e12, PeakFLOPS: 121e12}

var testDevices = []target{on(A100), on(L4), on(H100), on(H200), smallWorkspace(H200, 1<<20), {dev: H200, lim: Limits{NoSplitK: true}}}

// target is a device behind an engine that plans within lim.
type target struct {
	dev DeviceInfo
	lim Limits
}

// on is dev behind an engine with the default Options.
func on(dev DeviceInfo) target { return target{dev: dev} }

// smallWorkspace is dev behind an engine that reserved bytes per stream.
func smallWorkspace(dev DeviceInfo, bytes int64) target {
	return target{dev: dev, lim: Limits{WorkspaceBytes: bytes}}
}

// newPlanner is NewPlanner on a target.
func newPlanner(cat *kernels.Catalog, table *Table, tg target) *Planner {
	return NewPlanner(cat, table, tg.dev, tg.lim)
}

// testCatalog is a synthetic catalog, independent of kernels/manifest.json,
// with one kernel per constraint worth exercising.
func testCatalog(t testing.TB) *kernels.Catalog {
	base := kernels.KernelSpec{Image: "test.fatbin", Family: "mma", MinArch: SM80, In: BF16, Out: BF16,
		Layout: kernels.LayoutTN, TileM: 64, TileN: 128, TileK: 32, Stages: 3, Threads: 256, SmemBytes: 48 << 10,
		PtrAlign: 16, LDAlign: 16, KMultiple: 8, MaxSplitK: 8, Reduction: kernels.ReduceWorkspace,
		ReduceKernel: "reduce_f32", IndexBits: 32,
		Model: kernels.Model{Kind: kernels.ModelDecode, RateShare: 0.5, StreamShare: 1, RasterGroup: 1}}
	kernel := func(name string, edit func(k *kernels.KernelSpec)) kernels.KernelSpec {
		k := base
		k.Name, k.Digest = name, kernels.DigestOf([]byte(name))
		edit(&k)
		return k
	}
	simt := func(k *kernels.KernelSpec) {
		k.Family, k.TileM, k.TileN, k.Stages, k.Threads, k.SmemBytes = "decode_fma", 4, 64, 1, 128, 0
		k.PtrAlign, k.LDAlign, k.KMultiple, k.MaxSplitK, k.Reduction, k.ReduceKernel, k.IndexBits = 2, 2, 1, 1, kernels.ReduceNone, "", 64
		k.Model.RateShare = 1.0 / 12
	}
	cat, err := kernels.NewCatalog(kernels.Manifest{Schema: kernels.SchemaVersion, Images: []kernels.Image{{File: "test.fatbin", SmemLimit: 227 << 10}}, Kernels: []kernels.KernelSpec{
		kernel("simt_bf16", simt),
		kernel("simt_f16", func(k *kernels.KernelSpec) { simt(k); k.In, k.Out = F16, F16 }),
		kernel("mma80_bf16", func(k *kernels.KernelSpec) {}),
		kernel("mma80_f16", func(k *kernels.KernelSpec) { k.In, k.Out = F16, F16 }),
		kernel("sass80_bf16", func(k *kernels.KernelSpec) { k.MaxArch = SM86 }),
		kernel("wide80_bf16", func(k *kernels.KernelSpec) { k.TileM, k.TileN, k.SmemBytes = 128, 256, 200<<10 }),
		kernel("decode90_bf16", func(k *kernels.KernelSpec) {
			k.Family, k.MinArch, k.TileM, k.TileN, k.TileK, k.MaxSplitK = "decode_mma", SM90, 16, 64, 64, 16
			k.Model.RateShare = 0.25
		}),
		kernel("fp8_89", func(k *kernels.KernelSpec) {
			k.MinArch, k.In, k.KMultiple, k.Scalings = SM89, E4M3, 16, []kernels.Scaling{ScalingTensor, ScalingRow}
		}),
	}})
	require.NoError(t, err)
	return cat
}

// testTable has an exact (4096, 4096) entry and defaults for sm_90 and sm_80
// bf16; f16 and e4m3 are left to the heuristic.
func testTable() *Table {
	entry := func(a Arch, n, k int, b ...Bucket) Entry {
		for i := range b { // measured with testCatalog's kernels
			b[i].Digest = kernels.DigestOf([]byte(b[i].Kernel))
		}
		return Entry{Arch: a, Types: Types{In: BF16, Out: BF16}, Layout: kernels.LayoutTN, N: n, K: k, Buckets: b}
	}
	return &Table{Provenance: Provenance{Source: "test"}, Entries: []Entry{
		entry(SM90, 4096, 4096,
			Bucket{MinM: 1, MaxM: 16, Kernel: "decode90_bf16", SplitK: 4, RunnerUp: "simt_bf16", MarginPct: 12},
			Bucket{MinM: 17, Kernel: "mma80_bf16", SplitK: 1}),
		entry(SM90, 0, 0,
			Bucket{MinM: 1, MaxM: 1, Kernel: "simt_bf16", SplitK: 1},
			Bucket{MinM: 2, Kernel: "mma80_bf16", SplitK: 2}),
		entry(SM80, 0, 0, Bucket{MinM: 1, Kernel: "mma80_bf16", SplitK: 1}),
	}}
}

// plan plans p and turns a panic into a test failure naming the problem.
func plan(t testing.TB, pl *Planner, p *Problem) (out Plan, err error) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("Plan panicked on %+v (%s): %v", *p, pl.dev.Arch, r)
		}
	}()
	return pl.Plan(p)
}

// checkPlan asserts the planner's contract for one result: only typed errors,
// ErrNoKernel only when no kernel survives the constraints, no-ops for empty
// problems, and otherwise a kernel that passes CheckKernel with a launch that
// covers the problem.
func checkPlan(t testing.TB, pl *Planner, p *Problem, out Plan, err error) {
	t.Helper()
	if err != nil {
		require.True(t, errors.Is(err, ErrNoKernel) || errors.Is(err, ErrInvalidArgument), "untyped error %v", err)
		if errors.Is(err, ErrNoKernel) {
			survivors, _ := filter(pl.cat, p, pl.dev, pl.lim, nil)
			require.Empty(t, survivors, "ErrNoKernel although kernels fit %+v on %s", *p, pl.dev.Arch)
		}
		return
	}
	if p.empty() {
		require.Equal(t, LevelNoop, out.Level)
		require.Nil(t, out.Kernel)
		return
	}
	require.NotNil(t, out.Kernel)
	require.Empty(t, pl.CheckKernel(out.Kernel, p, out.SplitK), "plan for %+v on %s", *p, pl.dev.Arch)
	k := out.Kernel
	if k.Persistent { // min(tiles, SMs) blocks walk the tiles
		tiles := ceilDiv(p.N, k.TileN) * ceilDiv(p.M, k.TileM) * out.SplitK
		require.Equal(t, [3]uint32{uint32(min(tiles, pl.dev.SMs)), 1, 1}, out.mainLaunch().grid)
	} else {
		require.GreaterOrEqual(t, int(out.mainLaunch().grid[0])*k.TileN, p.N)
		require.GreaterOrEqual(t, int(out.mainLaunch().grid[1])*k.TileM, p.M)
		require.Equal(t, uint32(out.SplitK), out.mainLaunch().grid[2])
	}
	require.GreaterOrEqual(t, out.SplitK*out.kPerSplit, p.K)
	if out.SplitK > 1 {
		require.Less(t, (out.SplitK-1)*out.kPerSplit, p.K, "an empty split")
		if !k.Repack() { // TestRepackPlan has the copies'
			require.Equal(t, int64(out.SplitK)*int64(p.M)*int64(p.N)*4, out.WorkspaceBytes)
		}
	}
}

func TestPlanLevels(t *testing.T) {
	cat, tab := testCatalog(t), testTable()
	misaligned := func(off DevicePtr) func(p *Problem) { return func(p *Problem) { p.B += off } }
	for _, tc := range []struct {
		name    string
		dev     DeviceInfo
		lim     Limits
		table   *Table
		m, n, k int
		edit    func(p *Problem)
		level   Level
		kernel  string
		splitK  int
		explain []string
	}{
		{name: "exact entry wins", dev: H200, m: 8, n: 4096, k: 4096,
			level: LevelExact, kernel: "decode90_bf16", splitK: 4,
			explain: []string{"level: exact (N,K) entry", "bucket: [1, 16]", "runner-up: simt_bf16",
				"3 kernels: for another dtype pair\n"}},
		{name: "exact entry upper bucket", dev: H200, m: 100, n: 4096, k: 4096,
			level: LevelExact, kernel: "mma80_bf16", splitK: 1, explain: []string{"bucket: [17, ∞)"}},
		{name: "default entry", dev: H200, m: 1, n: 1024, k: 1024, level: LevelDefault, kernel: "simt_bf16", splitK: 1,
			explain: []string{"passed over: exact (N,K) entry: none in the table"}},
		{name: "default entry split-K", dev: H100, m: 64, n: 1024, k: 1024, level: LevelDefault, kernel: "mma80_bf16", splitK: 2},
		{name: "exact kernel fails live constraint, default answers", dev: H200, m: 1, n: 4096, k: 4096,
			edit: misaligned(2), level: LevelDefault, kernel: "simt_bf16", splitK: 1,
			explain: []string{"passed over: exact (N,K) entry: bucket [1, 16] names decode90_bf16, which fails here: B pointer",
				"not 16-byte aligned", "3 kernels: need the B pointer more aligned\n", "\n    decode90_bf16: B pointer"}},
		{name: "both table levels fail, heuristic answers", dev: H200, m: 8, n: 4096, k: 4096,
			edit: misaligned(8), level: LevelHeuristic, kernel: "simt_bf16", splitK: 1,
			explain: []string{"passed over: exact (N,K) entry: bucket [1, 16]", "passed over: default entry: bucket [2, ∞) names mma80_bf16",
				"level: heuristic", "bucket: M class [5, 8]", "estimate:"}},
		{name: "exact split-K needs more workspace than reserved, default answers", dev: H200, lim: Limits{WorkspaceBytes: 300 << 10},
			m: 8, n: 4096, k: 4096, level: LevelDefault, kernel: "mma80_bf16", splitK: 2,
			explain: []string{"names decode90_bf16, which fails here: split-K 4 needs 524288 B of workspace, 307200 B reserved per stream"}},
		{name: "sm_80 default", dev: A100, m: 300, n: 4096, k: 4096, level: LevelDefault, kernel: "mma80_bf16", splitK: 1,
			explain: []string{"2 kernels: built for another arch\n", "\n    decode90_bf16: built for sm_90..any, device is sm_80",
				"1 kernel: need more shared memory than the device allows\n",
				"\n    wide80_bf16: needs 204800 B shared memory, device allows 166912"}},
		{name: "no table entry for f16", dev: H200, m: 4096, n: 4096, k: 4096,
			edit: func(p *Problem) { p.Types.In, p.Types.Out = F16, F16 }, level: LevelHeuristic, kernel: "mma80_f16",
			explain: []string{"passed over: default entry: none in the table"}},
		{name: "empty table", dev: H200, table: &Table{}, m: 1, n: 4096, k: 4096, level: LevelHeuristic},
		{name: "e4m3 on sm_89", dev: L4, m: 64, n: 4096, k: 4096,
			edit: func(p *Problem) { p.Types.In, p.ScaleA, p.ScaleB = E4M3, 1, 1 }, level: LevelHeuristic, kernel: "fp8_89"},
		{name: "odd K leaves the simt kernel", dev: H200, m: 4096, n: 4096, k: 4095, level: LevelHeuristic, kernel: "simt_bf16",
			explain: []string{"which fails here: LDA·2 = 8190 B not a multiple of 16"}},
		{name: "M = 0 is a no-op", dev: H200, m: 0, n: 4096, k: 4096, level: LevelNoop, splitK: 1, explain: []string{"no-op"}},
		{name: "N = 0 is a no-op", dev: A100, m: 7, n: 0, k: 4096, level: LevelNoop, splitK: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			table := tab
			if tc.table != nil {
				table = tc.table
			}
			pl := NewPlanner(cat, table, tc.dev, tc.lim)
			p := testProblem(tc.m, tc.n, tc.k)
			if tc.edit != nil {
				tc.edit(&p)
			}
			out, err := plan(t, pl, &p)
			require.NoError(t, err)
			checkPlan(t, pl, &p, out, nil)
			assert.Equal(t, tc.level, out.Level)
			if tc.kernel != "" {
				assert.Equal(t, tc.kernel, out.Kernel.Name)
			}
			if tc.splitK != 0 {
				assert.Equal(t, tc.splitK, out.SplitK)
			}
			text := out.Explain()
			for _, s := range tc.explain {
				assert.Contains(t, text, s)
			}
			again, err := plan(t, pl, &p) // from the route cache
			require.NoError(t, err)
			assert.Equal(t, out, again)
		})
	}
}

func TestPlanGeometry(t *testing.T) {
	pl := NewPlanner(testCatalog(t), testTable(), H200, Limits{})
	p := testProblem(8, 4096, 4096)
	out, err := pl.Plan(&p)
	require.NoError(t, err)
	assert.Equal(t, "decode90_bf16", out.Kernel.Name)
	assert.Equal(t, 4, out.SplitK)
	assert.Equal(t, 1024, out.kPerSplit)
	assert.Equal(t, [3]uint32{4096 / 64, 1, 4}, out.mainLaunch().grid)
	assert.Equal(t, [3]uint32{256, 1, 1}, out.mainLaunch().block)
	assert.Equal(t, int64(4*8*4096*4), out.WorkspaceBytes)
	assert.Equal(t, out.Kernel.SmemBytes, out.mainLaunch().smemBytes)
	assert.Equal(t, [3]int{8, 4096, 4096}, [3]int{out.problem.M, out.problem.N, out.problem.K})
}

func TestPlanErrors(t *testing.T) {
	cat, tab := testCatalog(t), testTable()
	t.Run("invalid problem", func(t *testing.T) {
		p := testProblem(-1, 4096, 4096)
		_, err := NewPlanner(cat, tab, H200, Limits{}).Plan(&p)
		var ae *ArgError
		require.ErrorAs(t, err, &ae)
		assert.Equal(t, "M", ae.Field)
	})
	t.Run("no kernel counts every rejection by rule", func(t *testing.T) {
		p := testProblem(16, 4096, 4096)
		dev := H200
		dev.Arch = 75 // no kernel is built for sm_75
		_, err := NewPlanner(cat, tab, dev, Limits{}).Plan(&p)
		require.ErrorIs(t, err, ErrNoKernel)
		n := len(cat.Kernels())
		assert.Contains(t, err.Error(), fmt.Sprintf("rejected %d of %d kernels:\n  %d kernels: built for another arch, e.g. simt_bf16: ", n, n, n))
		assert.Contains(t, err.Error(), "device is sm_75")
	})
}

// e4m3 below sm_89 is a bad argument, refused before any kernel is
// considered, by Plan and PlanKernel alike, empty problems included.
func TestPlanE4M3NeedsSM89(t *testing.T) {
	cat, tab := testCatalog(t), testTable()
	for _, c := range []struct{ preset, arch string }{{"a100", "sm_80"}, {"a10", "sm_86"}} {
		t.Run(c.preset, func(t *testing.T) {
			dev, err := DevicePreset(c.preset)
			require.NoError(t, err)
			pl := NewPlanner(cat, tab, dev, Limits{})
			for _, m := range []int{16, 0} {
				p := testProblem(m, 4096, 4096)
				e4m3(&p, ScalingTensor)
				for name, err := range map[string]error{"Plan": second(pl.Plan(&p)), "PlanKernel": second(pl.PlanKernel(&p, "fp8_89", 1))} {
					var ae *ArgError
					require.ErrorAs(t, err, &ae, "%s M=%d", name, m)
					assert.Equal(t, "Types.In", ae.Field)
					assert.Equal(t, "e4m3 needs sm_89 or newer; device is "+c.arch, ae.Rule)
					assert.NotErrorIs(t, err, ErrNoKernel)
				}
			}
			p := testProblem(16, 4096, 4096)
			_, err = pl.Plan(&p)
			assert.NoError(t, err, "bf16 plans on %s", c.arch)
		})
	}
	p := testProblem(16, 4096, 4096)
	e4m3(&p, ScalingTensor)
	out, err := NewPlanner(cat, tab, L4, Limits{}).Plan(&p)
	require.NoError(t, err, "sm_89 takes e4m3")
	assert.Equal(t, "fp8_89", out.Kernel.Name)
}

// second returns the error of a (value, error) pair.
func second[T any](_ T, err error) error { return err }

// An e4m3 kernel runs only the scaling modes it takes; the mode is part of
// the route key, so a plan for one mode never answers another.
func TestPlanScaling(t *testing.T) {
	pl := NewPlanner(testCatalog(t), testTable(), L4, Limits{}) // fp8_89 takes tensor and row
	for _, s := range []Scaling{ScalingTensor, ScalingRow, ScalingBlock, ScalingRow} {
		p := testProblem(16, 4096, 4096)
		e4m3(&p, s)
		out, err := plan(t, pl, &p)
		if s == ScalingBlock {
			require.ErrorIs(t, err, ErrNoKernel)
			assert.Contains(t, err.Error(), "e4m3→bf16 M=16 N=4096 K=4096, block128 scaling (device vectors) on sm_89\n")
			assert.Contains(t, err.Error(), "1 kernel: take another e4m3 scaling mode\n    fp8_89: takes [tensor row] scaling, problem has block128")
			_, err = pl.PlanKernel(&p, "fp8_89", 1)
			assert.ErrorContains(t, err, "kernel fp8_89: takes [tensor row] scaling, problem has block128")
			continue
		}
		require.NoError(t, err, "%s", s)
		assert.Equal(t, "fp8_89", out.Kernel.Name)
		checkPlan(t, pl, &p, out, nil)
	}
	// With K = 0 nothing is scaled: the launch folds, and a kernel taking
	// tensor scaling runs a block-scaled problem.
	p := testProblem(16, 4096, 0)
	e4m3(&p, ScalingBlock)
	out, err := plan(t, pl, &p)
	require.NoError(t, err)
	assert.Equal(t, "fp8_89", out.Kernel.Name)
}

func TestPlanKernel(t *testing.T) {
	pl := NewPlanner(testCatalog(t), testTable(), H200, Limits{})
	p := testProblem(32, 4096, 4096)
	out, err := pl.PlanKernel(&p, "mma80_bf16", 8)
	require.NoError(t, err)
	assert.Equal(t, LevelForced, out.Level)
	assert.Equal(t, 8, out.SplitK)
	assert.Contains(t, out.Explain(), "level: forced")
	_, err = pl.PlanKernel(&p, "simt_bf16", 2)
	assert.ErrorIs(t, err, ErrNoKernel)
	assert.ErrorContains(t, err, "split-K 2 outside 1..1")
	_, err = pl.PlanKernel(&p, "nope", 1)
	assert.ErrorIs(t, err, ErrNoKernel)
	p.M = 0
	out, err = pl.PlanKernel(&p, "mma80_bf16", 1)
	require.NoError(t, err)
	assert.Equal(t, LevelNoop, out.Level)
}

// K = 0 is valid (D = Beta·C + Bias): it must plan, also where the bucket
// asks for split-K.
func TestPlanKZero(t *testing.T) {
	pl := NewPlanner(testCatalog(t), testTable(), H200, Limits{})
	for _, m := range []int{1, 64} { // default entry: split-K 1, then 2
		p := testProblem(m, 1024, 0)
		p.A, p.B, p.C, p.Beta = 0, 0, ptrC, 1
		out, err := plan(t, pl, &p)
		require.NoError(t, err)
		checkPlan(t, pl, &p, out, nil)
	}
	nilTable := NewPlanner(testCatalog(t), nil, H200, Limits{})
	p := testProblem(16, 1024, 0)
	out, err := plan(t, nilTable, &p)
	require.NoError(t, err, "the heuristic must find a kernel for K = 0")
	checkPlan(t, nilTable, &p, out, nil)
}

// A route is cached per M class; the live constraints that depend on the
// exact M (the grid's M-tile limit) must still hold for every M in the class.
func TestPlanCacheRechecksLiveConstraints(t *testing.T) {
	tab := &Table{Entries: []Entry{{Arch: SM90, Types: Types{In: BF16, Out: BF16}, Layout: kernels.LayoutTN,
		Buckets: []Bucket{{MinM: 1, Kernel: "decode90_bf16", Digest: kernels.DigestOf([]byte("decode90_bf16")), SplitK: 1}}}}}
	pl := NewPlanner(testCatalog(t), tab, H200, Limits{})
	for _, m := range []int{1<<19 + 1, 1 << 20} { // one M class; 16-row tiles: 2^20 rows need 65536 > 65535
		p := testProblem(m, 64, 64)
		out, err := plan(t, pl, &p)
		checkPlan(t, pl, &p, out, err)
	}
}

// randomProblem draws a problem that is mostly valid, over the shapes the
// table knows and random ones, with every pointer alignment class and padded
// leading dimensions.
func randomProblem(rng *rand.Rand) Problem {
	logUniform := func(maxLog int) int { return rng.IntN(1 << rng.IntN(maxLog+1)) }
	shapes := [][2]int{{4096, 4096}, {6144, 4096}, {1024, 1024}, {4096, 14336}}
	var n, k int
	if rng.IntN(2) == 0 {
		s := shapes[rng.IntN(len(shapes))]
		n, k = s[0], s[1]
	} else {
		n, k = logUniform(15), logUniform(15)
	}
	m := logUniform(17)
	if rng.IntN(20) == 0 {
		m = 0
	}
	pad := func() int { return []int{0, 0, 0, 1, 2, 3, 8, 16, 64}[rng.IntN(9)] }
	ptr := func(slot int) DevicePtr { // exactly 2^i-aligned, or 2^40-aligned
		return DevicePtr(slot<<40) + DevicePtr([]int{0, 1, 2, 4, 8, 16, 32, 64, 128, 256}[rng.IntN(10)])
	}
	p := Problem{M: m, N: n, K: k, LDA: k + pad(), LDB: k + pad(), LDC: n + pad(),
		A: ptr(1), B: ptr(2), D: ptr(4), Alpha: 1}
	p.Types.In = []DType{F16, BF16, E4M3}[rng.IntN(3)]
	p.Types.Out = p.Types.In
	if p.Types.In == E4M3 {
		p.Types.Out, p.ScaleA, p.ScaleB = []DType{F16, BF16}[rng.IntN(2)], 0.5, 2
	}
	if rng.IntN(4) == 0 {
		p.C, p.Beta = ptr(3), 1
	}
	if rng.IntN(4) == 0 {
		p.Bias = ptr(5)
	}
	return p
}

// Property: over random problems, alignments, strides and devices, every
// plan satisfies checkPlan, also when it comes from the route cache.
func TestPlanProperty(t *testing.T) {
	planners := testPlanners(t, testDevices)
	rng := rand.New(rand.NewPCG(2, 3))
	n := 20000
	if testing.Short() {
		n = 2000
	}
	for range n {
		p := randomProblem(rng)
		pl := planners[rng.IntN(len(planners))]
		out, err := plan(t, pl, &p)
		checkPlan(t, pl, &p, out, err)
	}
}

func TestPlanConcurrent(t *testing.T) {
	pl := NewPlanner(testCatalog(t), testTable(), H200, Limits{})
	problems := make([]Problem, 200)
	rng := rand.New(rand.NewPCG(5, 8))
	for i := range problems {
		problems[i] = randomProblem(rng)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range problems {
				p := problems[(i+g*25)%len(problems)]
				out, err := pl.Plan(&p)
				if err == nil && out.Kernel != nil {
					assert.Empty(t, pl.CheckKernel(out.Kernel, &p, out.SplitK))
				}
			}
		})
	}
	wg.Wait()
}

func TestPlanCachedAllocs(t *testing.T) {
	pl := NewPlanner(testCatalog(t), testTable(), H200, Limits{})
	f16 := testProblem(100, 4096, 14336)
	f16.Types.In, f16.Types.Out = F16, F16
	for _, p := range []Problem{
		testProblem(8, 4096, 4096),   // exact
		testProblem(100, 1024, 1024), // default
		f16,                          // heuristic
	} {
		t.Run(fmt.Sprintf("M=%d N=%d K=%d", p.M, p.N, p.K), func(t *testing.T) {
			_, err := pl.Plan(&p)
			require.NoError(t, err)
			allocs := testing.AllocsPerRun(100, func() { _, _ = pl.Plan(&p) })
			assert.Zero(t, allocs, "allocations per cached plan")
		})
	}
}

func BenchmarkPlanCached(b *testing.B) {
	pl := NewPlanner(testCatalog(b), testTable(), H200, Limits{})
	p := testProblem(16, 4096, 4096)
	if _, err := pl.Plan(&p); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		_, _ = pl.Plan(&p)
	}
}

// The model stays finite for any valid manifest entry (a one-thread kernel,
// no load_bytes, no registers).
func TestEstimateTinyKernel(t *testing.T) {
	k := &kernels.KernelSpec{Name: "tiny", Family: "decode_fma", TileM: 1, TileN: 1, TileK: 1, Threads: 1, PtrAlign: 2, LDAlign: 2, KMultiple: 1, MaxSplitK: 1,
		Model: kernels.Model{Kind: kernels.ModelDecode, RateShare: 1.0 / 12, StreamShare: 1, RasterGroup: 1}}
	p := testProblem(3, 5, 7)
	est := EstimateSeconds(k, &p, 1, H200)
	assert.False(t, math.IsInf(est, 0) || math.IsNaN(est) || est <= 0, "estimate %g", est)
}

// testPlanners returns one planner over the test catalog and table per target.
func testPlanners(t testing.TB, targets []target) []*Planner {
	cat, tab := testCatalog(t), testTable()
	out := make([]*Planner, len(targets))
	for i, tg := range targets {
		out[i] = newPlanner(cat, tab, tg)
	}
	return out
}

// Explain's first line says an e4m3 problem's dtypes and scaling.
func TestExplainSaysScaling(t *testing.T) {
	pl := NewPlanner(testCatalog(t), testTable(), L4, Limits{})
	for _, c := range []struct {
		edit func(p *Problem)
		want string
	}{
		{func(p *Problem) { e4m3(p, ScalingTensor) }, "e4m3→bf16, tensor scaling (scalars folded into alpha)"},
		{func(p *Problem) { e4m3(p, ScalingTensor); devScales(p) }, "e4m3→bf16, tensor scaling (device scalars)"},
		{func(p *Problem) { e4m3(p, ScalingRow) }, "e4m3→bf16, row scaling (device vectors)"},
	} {
		p := testProblem(16, 4096, 4096)
		c.edit(&p)
		out, err := pl.Plan(&p)
		require.NoError(t, err)
		assert.Contains(t, out.Explain(), "problem: M=16 N=4096 K=4096 "+c.want+"\n")
	}
	p := testProblem(16, 4096, 4096)
	out, err := pl.Plan(&p)
	require.NoError(t, err)
	assert.Contains(t, out.Explain(), "problem: M=16 N=4096 K=4096\n", "16-bit problems have no scaling")
}

// An e4m3 problem routes by the entry of its own scaling; an entry whose
// kernel does not take it (a table made in code: LoadTable with a catalog
// refuses it) is passed over, and the heuristic picks among the kernels
// that take it.
func TestPlanScalingPassesOverTable(t *testing.T) {
	m := testCatalog(t).Manifest()
	b128 := *testCatalog(t).Kernel("fp8_89")
	b128.Name, b128.Scalings = "fp8_b128_89", []kernels.Scaling{ScalingBlock}
	m.Kernels = append(m.Kernels, b128)
	cat, err := kernels.NewCatalog(m)
	require.NoError(t, err)
	entry := func(s Scaling, kernel string) Entry {
		return Entry{Arch: SM89, Types: Types{In: E4M3, Out: BF16, Scaling: s}, Layout: kernels.LayoutTN, N: 4096, K: 4096,
			Buckets: []Bucket{{MinM: 1, Kernel: kernel, Digest: kernels.DigestOf([]byte("fp8_89")), SplitK: 1}}}
	}
	tab := &Table{Entries: []Entry{entry(ScalingTensor, "fp8_89"), entry(ScalingRow, "fp8_b128_89"), entry(ScalingBlock, "fp8_b128_89")}}
	pl := NewPlanner(cat, tab, L4, Limits{})
	for _, c := range []struct {
		s      Scaling
		level  Level
		kernel string
		note   string
	}{
		{ScalingTensor, LevelExact, "fp8_89", ""},
		{ScalingRow, LevelHeuristic, "fp8_89", "names fp8_b128_89, which fails here: takes [block128] scaling, problem has row"},
		{ScalingBlock, LevelExact, "fp8_b128_89", ""},
	} {
		p := testProblem(16, 4096, 4096)
		e4m3(&p, c.s)
		out, err := plan(t, pl, &p)
		require.NoError(t, err, "%s", c.s)
		checkPlan(t, pl, &p, out, nil)
		assert.Equal(t, c.level, out.Level, "%s", c.s)
		assert.Equal(t, c.kernel, out.Kernel.Name, "%s", c.s)
		text := out.Explain()
		assert.Contains(t, text, c.note)
		if c.s != ScalingBlock {
			assert.Contains(t, text, "1 kernel: take another e4m3 scaling mode\n    fp8_b128_89: takes [block128] scaling, problem has "+c.s.String())
		}
	}
}

// The workspace check saturates: a split-K factor of 2^62 (a hand-made
// KernelSpec; manifests and tables stop at kernels.MaxSplitK) needs more
// workspace than any cap, instead of overflowing to a small number.
func TestWorkspaceCheckDoesNotOverflow(t *testing.T) {
	k := *testCatalog(t).Kernel("mma80_bf16")
	k.MaxSplitK = 1 << 62
	p := &Problem{M: 16, N: 4096, K: 4096, LDA: 4096, LDB: 4096, LDC: 4096, Types: Types{In: BF16, Out: BF16}, A: 1 << 20, B: 1 << 30, C: 1 << 40}
	pl := newPlanner(testCatalog(t), nil, smallWorkspace(H200, 1<<30))
	for _, s := range []int{1 << 62, 1<<46 + 1, 1 << 33} {
		assert.Contains(t, pl.CheckKernel(&k, p, s), "B of workspace", "split-K %d", s)
	}
	assert.Equal(t, int64(math.MaxInt64), splitWorkspace(p, 1<<62))
	assert.Equal(t, int64(8*16*4096*4), splitWorkspace(p, 8))
}
