package dispatch

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gemmroute/gemmroute/kernels"
)

// An experimental kernel (not yet run on a GPU) is never the heuristic's
// choice, and a table entry naming it routes to it: the heuristic's own pick
// for a problem, once marked experimental, gives way to another kernel and
// still runs the problem when the table names it.
func TestExperimentalKernelsOnlyByTable(t *testing.T) {
	cat, err := DefaultCatalog()
	require.NoError(t, err)
	dev, err := DevicePreset("h200")
	require.NoError(t, err)
	p := PlaceholderProblem(300, 4096, 4096, BF16)
	pick, err := NewPlanner(cat, nil, dev, Limits{}).Plan(&p)
	require.NoError(t, err)
	require.Equal(t, LevelHeuristic, pick.Level)

	m := cat.Manifest()
	for i := range m.Kernels {
		m.Kernels[i].Experimental = m.Kernels[i].Name == pick.Kernel.Name
	}
	exp, err := kernels.NewCatalog(m)
	require.NoError(t, err)
	pl, err := NewPlanner(exp, nil, dev, Limits{}).Plan(&p)
	require.NoError(t, err)
	assert.NotEqual(t, pick.Kernel.Name, pl.Kernel.Name, "the heuristic picked the experimental kernel")
	assert.False(t, pl.Kernel.Experimental)
	assert.Contains(t, pl.Explain(), "1 kernel: are experimental")

	tab := &Table{Entries: []Entry{{Arch: dev.Arch, In: BF16, Out: BF16, Layout: kernels.LayoutTN,
		Buckets: []Bucket{{MinM: 1, Kernel: pick.Kernel.Name, SplitK: pick.SplitK}}}}}
	pl, err = NewPlanner(exp, tab, dev, Limits{}).Plan(&p)
	require.NoError(t, err)
	assert.Equal(t, pick.Kernel.Name, pl.Kernel.Name)
	assert.True(t, pl.Kernel.Experimental)
	assert.Equal(t, LevelDefault, pl.Level)
}

// A persistent kernel is launched with min(tiles, SMs) blocks in one
// dimension; the others with the tile grid.
func TestPersistentGrid(t *testing.T) {
	cat, err := DefaultCatalog()
	require.NoError(t, err)
	dev, err := DevicePreset("h200")
	require.NoError(t, err)
	pl := NewPlanner(cat, nil, dev, Limits{})
	seen := 0
	for _, k := range cat.Kernels() {
		if !k.Persistent || !k.RunsOn(dev.Arch) {
			continue
		}
		seen++
		for _, c := range []struct {
			m, n        int
			split       int
			want        uint32 // 128×128 tiles
			wantCluster uint32 // 128×128 tiles in clusters of two
		}{{128, 256, 1, 2, 4}, {4096, 4096, 1, 132, 132}, {256, 1024, 3, 48, 48}, {300, 200, 1, 6, 8}} {
			p := PlaceholderProblem(c.m, c.n, 4096, k.In)
			p.Out, p.ScaleA, p.ScaleB = k.Out, 1, 1
			plan, err := pl.PlanKernel(&p, k.Name, c.split)
			require.NoError(t, err, k.Name)
			if k.Cluster == 2 { // clusters of two blocks, one per pair of M tiles of an N tile
				groups := ceilDiv(ceilDiv(c.m, k.TileM), 2) * ceilDiv(c.n, k.TileN) * plan.SplitK
				assert.Equal(t, [3]uint32{uint32(2 * min(groups, dev.SMs/2)), 1, 1}, plan.launches[0].grid, "%s M=%d N=%d split %d", k.Name, c.m, c.n, c.split)
				if k.TileM == 128 && k.TileN == 128 {
					assert.Equal(t, c.wantCluster, plan.launches[0].grid[0], "%s M=%d N=%d split %d", k.Name, c.m, c.n, c.split)
				}
				continue
			}
			tiles := ceilDiv(c.m, k.TileM) * ceilDiv(c.n, k.TileN) * plan.SplitK
			assert.Equal(t, [3]uint32{uint32(min(tiles, dev.SMs)), 1, 1}, plan.launches[0].grid, "%s M=%d N=%d split %d", k.Name, c.m, c.n, c.split)
			if k.TileM == 128 && k.TileN == 128 {
				assert.Equal(t, c.want, plan.launches[0].grid[0], "%s M=%d N=%d split %d", k.Name, c.m, c.n, c.split)
			}
		}
	}
	require.NotZero(t, seen, "no persistent kernel in the catalog")
	p := PlaceholderProblem(4096, 4096, 4096, BF16)
	plan, err := pl.PlanKernel(&p, "gemmroute_sm90_ws_wgmma_bf16_bf16_f32_tn_128x128x64_w12_s6_a16", 1)
	require.NoError(t, err)
	assert.Equal(t, [3]uint32{32, 32, 1}, plan.launches[0].grid, "a tile grid")
}
