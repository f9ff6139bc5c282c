package dispatch

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gemmroute/gemmroute/kernels"
)

// A split-K plan carries both of its launches, the GEMM kernel and the
// reduce, and Explain prints each with its grid, block and shared memory.
func TestSplitKPlanExplainsBothLaunches(t *testing.T) {
	pl := NewPlanner(testCatalog(t), testTable(), H200, Limits{})
	p := testProblem(8, 4096, 4096) // the exact entry: decode90_bf16 split-K 4
	out, err := pl.Plan(&p)
	require.NoError(t, err)
	require.Equal(t, 4, out.SplitK)
	ls := out.plannedLaunches()
	require.Len(t, ls, 2)
	assert.Equal(t, launch{fn: fnMain, name: "decode90_bf16", grid: [3]uint32{4096 / 64, 1, 4}, block: [3]uint32{256, 1, 1}, smemBytes: 48 << 10}, ls[0])
	// 8·4096 outputs, 256 a block: 128 blocks, under 16 per SM.
	assert.Equal(t, launch{fn: fnReduce, name: "reduce_f32", grid: [3]uint32{128, 1, 1}, block: [3]uint32{256, 1, 1}}, ls[1])
	text := out.Explain()
	for _, want := range []string{
		"split-K: 4 (K per split 1024), workspace 524288 B\n",
		"launch 1 of 2: decode90_bf16 grid [64 1 4] block [256 1 1] smem 49152 B\n",
		"launch 2 of 2: reduce_f32 grid [128 1 1] block [256 1 1] smem 0 B (sums the 4 fp32 partials into D)\n",
	} {
		assert.Contains(t, text, want)
	}
	// Without split-K there is one launch, and Explain says so.
	one, err := pl.PlanKernel(&p, "decode90_bf16", 1)
	require.NoError(t, err)
	require.Len(t, one.plannedLaunches(), 1)
	assert.Contains(t, one.Explain(), "launch 1 of 1: decode90_bf16 grid [64 1 1]")
	assert.NotContains(t, one.Explain(), "launch 2")
	// The reduce grid stops at 16 blocks per SM.
	big := testProblem(512, 4096, 4096)
	forced, err := pl.PlanKernel(&big, "mma80_bf16", 2)
	require.NoError(t, err)
	require.Len(t, forced.plannedLaunches(), 2)
	assert.Equal(t, [3]uint32{uint32(H200.SMs * 16), 1, 1}, forced.launches[1].grid)
}

// A stream being captured without a workspace plans through the planner's
// limits (NoSplitK), not through a second planner: the exact entry's
// split-K bucket is passed over and the plan launches one kernel. The same
// planner keeps planning with split-K for other streams, from its cache.
func TestNoSplitKLimit(t *testing.T) {
	cat, tab := testCatalog(t), testTable()
	p := testProblem(8, 4096, 4096) // the exact entry: decode90_bf16 split-K 4
	check := func(t *testing.T, out Plan, err error) {
		t.Helper()
		require.NoError(t, err)
		assert.Equal(t, 1, out.SplitK)
		assert.Zero(t, out.WorkspaceBytes)
		assert.Len(t, out.plannedLaunches(), 1)
		assert.Equal(t, LevelHeuristic, out.Level)
		text := out.Explain()
		assert.Contains(t, text, "passed over: default entry: bucket [2, ∞) names mma80_bf16, which fails here: split-K 2 needs")
		assert.Contains(t, text, "limits: no split-K (no workspace)")
		assert.Contains(t, text, "passed over: exact (N,K) entry: bucket [1, 16] names decode90_bf16, which fails here: split-K 4 needs 524288 B of workspace, and this plan may have none")
	}
	t.Run("planner option", func(t *testing.T) {
		out, err := NewPlanner(cat, tab, H200, Limits{NoSplitK: true}).Plan(&p)
		check(t, out, err)
		// Forcing a split is refused under the limit.
		_, err = NewPlanner(cat, tab, H200, Limits{NoSplitK: true}).PlanKernel(&p, "decode90_bf16", 2)
		require.ErrorIs(t, err, ErrNoKernel)
	})
	t.Run("per call, as the engine plans for a capture", func(t *testing.T) {
		pl := NewPlanner(cat, tab, H200, Limits{WorkspaceBytes: 64 << 20})
		split, err := pl.Plan(&p)
		require.NoError(t, err)
		require.Equal(t, 4, split.SplitK)
		lim := pl.lim
		lim.NoSplitK = true
		out, err := pl.plan(&p, lim)
		check(t, out, err)
		again, err := pl.Plan(&p) // the split route is still the planner's own
		require.NoError(t, err)
		assert.Equal(t, split, again)
		fresh, err := NewPlanner(cat, tab, H200, lim).Plan(&p)
		require.NoError(t, err)
		assert.Equal(t, outcomeOf(fresh, nil), outcomeOf(out, nil))
		allocs := testing.AllocsPerRun(50, func() { _, _ = pl.plan(&p, lim) })
		assert.Zero(t, allocs, "a cached no-split plan")
	})
	t.Run("heuristic", func(t *testing.T) {
		f16 := testProblem(4, 4096, 14336)
		f16.Types.In, f16.Types.Out = F16, F16
		for m := 1; m <= 4096; m *= 4 {
			f16.M = m
			out, err := NewPlanner(cat, tab, H200, Limits{NoSplitK: true}).Plan(&f16)
			require.NoError(t, err)
			assert.Equal(t, 1, out.SplitK, "M=%d", m)
		}
	})
}

// The launches of every plan are what the engine makes of them: each names
// the function Open resolved for its index (name and shared memory), the
// reduce comes last and only with split-K, and a workspace is needed
// exactly when there is a reduce. Over every kernel of the default
// catalog, on each arch, with and without split-K.
func TestPlanLaunchesAreTheEngines(t *testing.T) {
	cat, err := DefaultCatalog()
	require.NoError(t, err)
	planned := map[bool]int{} // plans checked, by split or not
	for _, dev := range []DeviceInfo{H200, A100} {
		pl := NewPlanner(cat, nil, dev, Limits{WorkspaceBytes: 1 << 30})
		for _, k := range cat.Kernels() {
			k := cat.Kernel(k.Name)
			if !k.RunsOn(dev.Arch) {
				continue
			}
			for _, c := range []struct{ m, n, kk, split int }{{1, 4096, 4096, 1}, {33, 6144, 4096, k.MaxSplitK}, {4096, 1024, 8192, min(2, k.MaxSplitK)}} {
				p := testProblem(c.m, c.n, c.kk)
				p.Types.In, p.Types.Out = k.In, k.Out
				if k.In == E4M3 {
					e4m3(&p, k.Scalings[0])
				}
				name := fmt.Sprintf("%s on %s M=%d N=%d K=%d split %d", k.Name, dev.Arch, c.m, c.n, c.kk, c.split)
				out, err := pl.PlanKernel(&p, k.Name, c.split)
				if err != nil {
					require.ErrorIs(t, err, ErrNoKernel, name)
					continue
				}
				planned[out.SplitK > 1]++
				ls := out.plannedLaunches()
				reduce := out.SplitK > 1 && !k.SplitFixed() // a split_fixed kernel sums its parts itself
				require.Len(t, ls, 1+btoi(reduce), name)
				for i, l := range ls {
					require.Equal(t, launchFn(i), l.fn, name)
					require.Contains(t, kernelFns(k), l.fn, "%s: launch %d starts a function Open does not resolve", name, i)
					fn, smem := l.fn.of(k)
					require.Equal(t, fn, l.name, name)
					require.Equal(t, smem, l.smemBytes, name)
					require.NotZero(t, l.grid[0]*l.grid[1]*l.grid[2], name)
					require.NotZero(t, l.block[0], name)
				}
				require.Equal(t, uint32(k.Threads), ls[0].block[0], name)
				require.Equal(t, out.SplitK > 1 || k.StreamK() && streamKWorkspace(k, &p, dev.SMs, max(out.tailParts, 1)) > 0, out.WorkspaceBytes > 0, name)
				if reduce {
					require.Equal(t, k.ReduceKernel, ls[1].name, name)
					require.Equal(t, [3]uint32{uint32(min(ceilDiv(c.m*c.n, 256), dev.SMs*16)), 1, 1}, ls[1].grid, name)
					require.Equal(t, [3]uint32{256, 1, 1}, ls[1].block, name)
				}
				require.Equal(t, len(ls), strings.Count(out.Explain(), "\nlaunch "), name)
			}
		}
	}
	t.Logf("plans checked: %d without split-K, %d with", planned[false], planned[true])
	assert.Greater(t, planned[false], 100)
	assert.Greater(t, planned[true], 50)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Every function Open resolves for a kernel (kernelFns: its GEMM, and its
// reduce and copies where it has them) names a function its image holds:
// an empty or unknown name fails the engine's Open for every kernel at
// once (a split_fixed kernel, which has no reduce, once asked for one
// named "").
func TestKernelFnsAreInTheImages(t *testing.T) {
	cat, err := DefaultCatalog()
	require.NoError(t, err)
	inImage := map[string]map[string]string{}
	for _, im := range cat.Manifest().Images {
		data, err := kernels.Images.ReadFile("images/" + im.File)
		require.NoError(t, err, im.File)
		inImage[im.File], err = kernels.Digests(data)
		require.NoError(t, err, im.File)
	}
	checked := 0
	for _, k := range cat.Kernels() {
		for _, fn := range kernelFns(&k) {
			name, _ := fn.of(&k)
			require.NotEmpty(t, name, "%s: function %d", k.Name, fn)
			if _, ok := inImage[k.Image][name]; !ok {
				t.Errorf("%s: function %d, %q, is not in %s", k.Name, fn, name, k.Image)
			}
			checked++
		}
	}
	t.Logf("%d functions of %d kernels found in their images", checked, len(cat.Kernels()))
}
