package dispatch

import (
	"fmt"
	"math/rand/v2"
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
	p := PlaceholderProblem(300, 4096, 4096, Types{In: BF16, Out: BF16})
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

	tab := &Table{Entries: []Entry{{Arch: dev.Arch, Types: Types{In: BF16, Out: BF16}, Layout: kernels.LayoutTN,
		Buckets: []Bucket{{MinM: 1, Kernel: pick.Kernel.Name, Digest: pick.Kernel.Digest, SplitK: pick.SplitK}}}}}
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
		if !k.Persistent || k.StreamK() || !k.RunsOn(dev.Arch) { // stream-K: TestStreamKGrid
			continue
		}
		seen++
		for _, c := range []struct {
			m, n        int
			split       int
			want        uint32 // 128×128 tiles
			wantCluster uint32 // 128×128 tiles in clusters of two
		}{{128, 256, 1, 2, 4}, {4096, 4096, 1, 132, 132}, {256, 1024, 3, 48, 48}, {300, 200, 1, 6, 8}} {
			ty := Types{In: k.In, Out: k.Out}
			if len(k.Scalings) > 0 { // e4m3: a scaling the kernel takes (block128 for the b128 kernels)
				ty.Scaling = k.Scalings[0]
			}
			p := PlaceholderProblem(c.m, c.n, 4096, ty)
			plan, err := pl.PlanKernel(&p, k.Name, c.split)
			require.NoError(t, err, k.Name)
			if k.Cluster == 2 && k.ClusterAlongN { // one cluster per pair of N tiles of an M tile
				groups := ceilDiv(c.m, k.TileM) * ceilDiv(ceilDiv(c.n, k.TileN), 2) * plan.SplitK
				assert.Equal(t, [3]uint32{uint32(2 * min(groups, dev.SMs/2)), 1, 1}, plan.mainLaunch().grid, "%s M=%d N=%d split %d", k.Name, c.m, c.n, c.split)
				continue
			}
			if k.Cluster == 2 { // clusters of two blocks, one per pair of M tiles of an N tile
				groups := ceilDiv(ceilDiv(c.m, k.TileM), 2) * ceilDiv(c.n, k.TileN) * plan.SplitK
				assert.Equal(t, [3]uint32{uint32(2 * min(groups, dev.SMs/2)), 1, 1}, plan.mainLaunch().grid, "%s M=%d N=%d split %d", k.Name, c.m, c.n, c.split)
				if k.TileM == 128 && k.TileN == 128 {
					assert.Equal(t, c.wantCluster, plan.mainLaunch().grid[0], "%s M=%d N=%d split %d", k.Name, c.m, c.n, c.split)
				}
				continue
			}
			tiles := ceilDiv(c.m, k.TileM) * ceilDiv(c.n, k.TileN) * plan.SplitK
			assert.Equal(t, [3]uint32{uint32(min(tiles, dev.SMs)), 1, 1}, plan.mainLaunch().grid, "%s M=%d N=%d split %d", k.Name, c.m, c.n, c.split)
			if k.TileM == 128 && k.TileN == 128 {
				assert.Equal(t, c.want, plan.mainLaunch().grid[0], "%s M=%d N=%d split %d", k.Name, c.m, c.n, c.split)
			}
		}
	}
	require.NotZero(t, seen, "no persistent kernel in the catalog")
	// qkv at M = 128 on 64×96 tiles in clusters along N: 2 M tiles × 32
	// pairs of the 64 N tiles, two blocks each.
	p := PlaceholderProblem(128, 6144, 4096, Types{In: BF16, Out: BF16})
	plan, err := pl.PlanKernel(&p, "gemmroute_sm90_ws_wgmma_mc2n_bf16_bf16_f32_tn_64x96x64_w8_s10_a16", 1)
	require.NoError(t, err)
	assert.Equal(t, [3]uint32{128, 1, 1}, plan.mainLaunch().grid)
	assert.Contains(t, plan.Explain(), "(clusters of 2 blocks along N)")
	p = PlaceholderProblem(4096, 4096, 4096, Types{In: BF16, Out: BF16})
	plan, err = pl.PlanKernel(&p, "gemmroute_sm90_ws_wgmma_bf16_bf16_f32_tn_128x128x64_w12_s6_a16", 1)
	require.NoError(t, err)
	assert.Equal(t, [3]uint32{32, 32, 1}, plan.mainLaunch().grid, "a tile grid")
}

// TestStreamKGrid: a stream-K kernel runs a block per SM, at most one per
// k-tile; it needs a partial tile of workspace for every part of a tail tile
// but its last, none when the grid divides the tiles; and under
// Limits.NoSplitK it is rejected exactly when it needs workspace.
func TestStreamKGrid(t *testing.T) {
	const name = "gemmroute_sm90_ws_wgmma_sk_bf16_bf16_f32_tn_128x256x64_w12_s4_a16"
	cat, k := catalogKernel(t, name)
	require.True(t, k.StreamK())
	for _, c := range []struct {
		m, n, k int
		grid    uint32
		ws      int64
	}{
		{1024, 6144, 4096, 132, 60 * 1 * 128 * 256 * 4}, // 192 tiles: 132 whole, 60 in 2 parts
		{128, 4096, 4096, 132, 16 * 7 * 128 * 256 * 4},  // 16 tiles of 64 k-tiles, 8 parts each
		{33 * 128, 1024, 4096, 132, 0},                  // 132 tiles: whole tiles, no partials
		{128, 256, 128, 2, 1 * 1 * 128 * 256 * 4},       // 1 tile of 2 k-tiles: 2 blocks, one a partial
		{128, 512, 128, 4, 2 * 1 * 128 * 256 * 4},       // 2 tiles of 2 k-tiles: 4 blocks
	} {
		p := PlaceholderProblem(c.m, c.n, c.k, Types{In: BF16, Out: BF16})
		plan, err := NewPlanner(cat, nil, H200, Limits{}).PlanKernel(&p, name, 1)
		require.NoError(t, err, "%+v", c)
		assert.Equal(t, [3]uint32{c.grid, 1, 1}, plan.mainLaunch().grid, "%+v", c)
		assert.Equal(t, c.ws, plan.WorkspaceBytes, "%+v", c)
		assert.Contains(t, plan.Explain(), "stream-K", "%+v", c)
		_, err = NewPlanner(cat, nil, H200, Limits{NoSplitK: true}).PlanKernel(&p, name, 1)
		if c.ws > 0 {
			require.ErrorIs(t, err, ErrNoKernel, "%+v: stream-K with partials under NoSplitK", c)
			assert.Contains(t, err.Error(), "stream-K needs", "%+v", c)
		} else {
			require.NoError(t, err, "%+v: whole tiles need no workspace", c)
		}
		_, err = NewPlanner(cat, nil, H200, Limits{WorkspaceBytes: 1 << 20}).PlanKernel(&p, name, 1)
		if c.ws > 1<<20 {
			require.ErrorIs(t, err, ErrNoKernel, "%+v: over the workspace cap", c)
		} else {
			require.NoError(t, err, "%+v", c)
		}
	}
	p := PlaceholderProblem(1024, 6144, 4096, Types{In: BF16, Out: BF16})
	_, err := NewPlanner(cat, nil, H200, Limits{}).PlanKernel(&p, name, 2)
	require.ErrorIs(t, err, ErrNoKernel, "stream-K kernels take no split-K factor")
}

// TestStreamKGridLongTails: ws_stream_k splits a tail of R tiles in ⌊G/R⌋
// parts; where that is more than maxTailParts, the planner takes the grid
// of [⌈3G/4⌉, G] whose walk the tail model finds at least 5 % shorter, and
// reserves the partials of that grid's walk. Elsewhere a block per SM.
func TestStreamKGridLongTails(t *testing.T) {
	const tile = 128 * 4
	for _, c := range []struct {
		name    string
		m, n, k int
		grid    uint32
		ws      int64
	}{
		// 135 tiles: at G = 132, 3 in 32 parts (call K measured this split
		// on the planned kernel: 81.0 µs, against 50.4 at 3 parts); at 112,
		// 23 in 4 parts
		{"sk_ts_bf16_bf16_f32_tn_128x192x64_w12_s4_a16", 600, 5120, 4096, 112, 23 * 3 * tile * 192},
		// 400 tiles: at G = 132, 4 in 32 parts; at 124, 28 in 4
		{"sk_sh_ts_bf16_bf16_f32_tn_128x128x64_w12_s6_a16", 1200, 5120, 4096, 124, 28 * 3 * tile * 128},
		// 1456 tiles: at G = 132, 4 in 32 parts; at 129, 37 in 3
		{"rn_sk_ts_bf16_bf16_f32_tn_128x256x64_w12_s3_a16", 1600, 28672, 4096, 129, 37 * 2 * tile * 256},
		// 480 tiles: 84 in one part each: a block per SM
		{"sk_sh_ts_bf16_bf16_f32_tn_128x128x64_w12_s6_a16", 1449, 5120, 4096, 132, 0},
		// 2912 tiles: 8 in 16 parts, but no grid of 99…131 is 5 % shorter
		{"sk_sh_ts_bf16_bf16_f32_tn_128x128x64_w12_s6_a16", 1600, 28672, 4096, 132, 8 * 15 * tile * 128},
	} {
		name := "gemmroute_sm90_ws_wgmma_" + c.name
		cat, k := catalogKernel(t, name)
		require.True(t, k.StreamK() && !k.TailParts(), name)
		p := PlaceholderProblem(c.m, c.n, c.k, Types{In: BF16, Out: BF16})
		plan, err := NewPlanner(cat, nil, H200, Limits{}).PlanKernel(&p, name, 1)
		require.NoError(t, err, "%+v", c)
		assert.Equal(t, [3]uint32{c.grid, 1, 1}, plan.mainLaunch().grid, "%+v", c)
		if _, rest, parts := streamKSplit(k, &p, int(c.grid), 1); c.grid < 132 {
			assert.LessOrEqual(t, parts, int64(maxTailParts), "%+v", c)
			assert.Contains(t, plan.Explain(), fmt.Sprintf("waves of %d blocks, the last %d split along K in %d parts", c.grid, rest, parts), "%+v", c)
		}
		assert.Equal(t, c.ws, plan.WorkspaceBytes, "%+v", c)
	}
}

// streamKCost counts a walk's waves of whole tiles whole: a kernel of
// planned parts whose tail split is 1 runs every tile whole, in as many
// waves as the tiles need, also where they do not fill the last (22 tiles of
// 128x192 at M = 128, N = 4096 on 132 blocks: one wave of 64 k-tiles and an
// item's fixed cost, not none); ws_stream_k's walk of the same tiles splits
// them into 6 parts, its tail cost.
func TestStreamKCostCountsPartialWaves(t *testing.T) {
	p := PlaceholderProblem(128, 4096, 4096, Types{In: BF16, Out: BF16})
	_, tp := catalogKernel(t, "gemmroute_sm90_ws_wgmma_sk_tp_sh_ts_bf16_bf16_f32_tn_128x192x64_w12_s4_a16")
	require.True(t, tp.TailParts())
	assert.InDelta(t, 64+tailItemKTiles, streamKCost(tp, &p, 132, 1), 1e-9)
	assert.InDelta(t, tailCost(22, 3, 64, 132), streamKCost(tp, &p, 132, 3), 1e-9)
	_, sk := catalogKernel(t, "gemmroute_sm90_ws_wgmma_sk_ts_bf16_bf16_f32_tn_128x192x64_w12_s4_a16")
	require.False(t, sk.TailParts())
	assert.InDelta(t, tailCost(22, 6, 64, 132), streamKCost(sk, &p, 132, 1), 1e-9)
}

// TestStreamKTailParts: a stream-K kernel of planned parts runs with the
// tail split of the model (tailParts) within the workspace it may have —
// none under Limits.NoSplitK, where it still runs, every tile whole — and
// reserves a partial tile for every part but a tail tile's last, and one
// tail tile more (the shifted neighbour's).
func TestStreamKTailParts(t *testing.T) {
	const name = "gemmroute_sm90_ws_wgmma_sk_tp_sh_ts_bf16_bf16_f32_tn_128x192x64_w12_s4_a16"
	cat, k := catalogKernel(t, name)
	require.True(t, k.StreamK() && k.TailParts())
	const tile = 128 * 192 * 4
	for _, c := range []struct {
		m, n, k int
		lim     Limits
		parts   int
		ws      int64
	}{
		// 135 tiles: 132 whole, 3 in 3 parts (ws_stream_k: 32 parts; call K
		// measured S = 1…8: 63.0, 53.1, 50.4, 49.7, 50.1, 50.5, 51.4 µs)
		{600, 5120, 4096, Limits{}, 3, 2 * 4 * tile},
		{600, 5120, 4096, Limits{WorkspaceBytes: 512 << 10}, 2, 1 * 4 * tile},
		{600, 5120, 4096, Limits{NoSplitK: true}, 1, 0},
		// 270 tiles: 6 in 3 parts (99.0, 90.9, 87.3, 86.9, 88.4 µs at S = 1…5)
		{1200, 5120, 4096, Limits{}, 3, 2 * 7 * tile},
		{768, 4096, 4096, Limits{}, 1, 0},  // 132 tiles: one whole wave
		{300, 5120, 4096, Limits{}, 1, 0},  // 81 tiles: whole (32.7, 44.1, 39.3 µs at S = 1…3)
		{1200, 4096, 4096, Limits{}, 1, 0}, // 220 tiles: 88 whole (70.6, 79.0, 75.0, 86.1 µs)
	} {
		p := PlaceholderProblem(c.m, c.n, c.k, Types{In: BF16, Out: BF16})
		plan, err := NewPlanner(cat, nil, H200, c.lim).PlanKernel(&p, name, 1)
		require.NoError(t, err, "%+v", c)
		assert.Equal(t, [3]uint32{132, 1, 1}, plan.mainLaunch().grid, "%+v", c)
		assert.Equal(t, c.parts, plan.tailParts, "%+v", c)
		assert.Equal(t, c.ws, plan.WorkspaceBytes, "%+v", c)
		assert.Contains(t, plan.Explain(), "stream-K", "%+v", c)
	}
}

// The shift kernels' stream-K walks (kernels/src/ws_streamk.cuh,
// ws_stream_k_planned and ws_stream_k_shift), in Go: every k-tile of every
// tile is computed once; a finisher waits only on parts of smaller number,
// which its block's walk or a lower one's has passed; the slots stay within
// streamKSlots; the shifted last M tile and the one before it are split
// alike (ws_stream_k_shift's walk did not, before: call E of
// docs/perf/2026-12-07-h200-h).
func TestStreamKShiftWalks(t *testing.T) {
	for _, name := range []string{
		"gemmroute_sm90_ws_wgmma_sk_tp_sh_ts_bf16_bf16_f32_tn_128x128x64_w12_s6_a16",
		"gemmroute_sm90_ws_wgmma_sk_sh_ts_bf16_bf16_f32_tn_128x128x64_w12_s6_a16",
		"gemmroute_sm90_ws_wgmma_sk_sh_ts_bf16_bf16_f32_tn_128x192x64_w12_s4_a16",
	} {
		_, k := catalogKernel(t, name)
		planned, moved := k.TailParts(), 0
		for _, c := range [][3]int{{600, 10240, 1032}, {600, 5120, 4096}, {1200, 4096, 4096}, {300, 5120, 4096}, {800, 4096, 4096}, {129, 384, 128}, {5000, 14336, 256}, {1449, 4096, 4096}, {900, 4096, 14336}, {700, 384, 4096}, {600, 16384, 4096}} {
			p := PlaceholderProblem(c[0], c[1], c[2], Types{In: BF16, Out: BF16})
			for _, g := range []int{132, 114, 7, streamKGrid(k, &p, 132)} { // and the planner's
				for s := 1; s <= maxTailParts; s++ {
					if !planned && s > 1 {
						break // the grid splits the tail: no plan's s
					}
					m, n, kk := c[0], c[1], c[2]
					what := fmt.Sprintf("%s M=%d N=%d K=%d G=%d S=%d", k.Name, m, n, kk, g, s)
					if checkStreamKShiftWalk(t, k, m, n, kk, g, s, planned, what) {
						moved++
					}
				}
			}
		}
		require.NotZero(t, moved, "%s: no case moves the shifted tile's neighbour into the tail", name)
	}
}

// checkStreamKShiftWalk walks one shift kernel's grid of g blocks over
// M × N × K as the kernel does, and checks what TestStreamKShiftWalks says;
// it reports whether the walk moved the whole tiles' boundary.
func checkStreamKShiftWalk(t *testing.T, k *kernels.KernelSpec, m, n, kk, g, s int, planned bool, what string) bool {
	bm := k.TileM
	mt, nt, kt := int64(ceilDiv(m, bm)), int64(ceilDiv(n, k.TileN)), int64(ceilDiv(kk, k.TileK))
	all, g64 := mt*nt, int64(g)
	split := func(rest int64) (int64, int64) { // parts, k-tiles a part
		parts := int64(1)
		switch {
		case planned:
			parts = max(1, min(int64(s), kt))
		case rest > 0:
			parts = max(1, min(g64/rest, kt))
		}
		kp := (kt + parts - 1) / parts
		return (kt + kp - 1) / kp, kp
	}
	full := all / g64 * g64
	parts, kp := split(all - full)
	if planned && parts == 1 {
		full = all
	}
	rows := min(8, mt)
	moved := parts > 1 && m >= bm && m%bm != 0 && rows >= 2 && full > 0 && full < rows*nt && full%rows == 1
	if moved {
		full--
		if !planned {
			parts, kp = split(all - full)
		}
	}
	rest := all - full
	covered := make([]int64, all) // k-tiles per tile
	isSplit := make([]bool, all)
	slots := int64(0)
	for b := int64(0); b < g64; b++ {
		for t := b; t < full; t += g64 {
			covered[t] += kt
		}
		step := g64 // planned: parts q = b, b + G, …; the grid's: part q = b alone
		if !planned {
			step = rest*parts + 1
		}
		for q := b; q < rest*parts; q += step {
			j, i := q/rest, q%rest
			k0 := j * kp
			covered[full+i] += min(kt, k0+kp) - k0
			isSplit[full+i] = parts > 1
			if j < parts-1 {
				slots = max(slots, q+1)
			} else {
				for jj := int64(0); jj < parts-1; jj++ {
					require.Less(t, jj*rest+i, q, what) // waits on an earlier part
				}
			}
		}
	}
	for tile, n := range covered {
		require.Equal(t, kt, n, "%s: tile %d", what, tile)
	}
	require.LessOrEqual(t, slots, streamKSlots(k, &Problem{M: m, N: n, K: kk}, g, s), what)
	if m >= bm && m%bm != 0 && mt >= 2 { // tile ids 0 and 1 of each N tile's first group: tm = mt − 1, mt − 2
		for tn := int64(0); tn < nt; tn++ {
			require.Equal(t, isSplit[tn*rows], isSplit[tn*rows+1], "%s: N tile %d", what, tn)
		}
	}
	return moved
}

// TestRepackPlan: a repack kernel takes only problems whose operands TMA
// cannot read as they are; its plan launches the repack first, over the rows
// it copies, then the GEMM on the copies (K and the pitches rounded up to 8
// elements); the workspace holds the split-K partials, then each copy on a
// 256-byte boundary; Explain says what is copied; without workspace
// (Limits.NoSplitK) it is rejected.
func TestRepackPlan(t *testing.T) {
	const name = "gemmroute_sm90_ws_wgmma_rp_bf16_bf16_f32_tn_128x128x64_w12_s6_a2"
	cat, k := catalogKernel(t, name)
	require.True(t, k.Repack() && k.TMA())
	pl := NewPlanner(cat, nil, H200, Limits{})
	aligned := PlaceholderProblem(256, 1024, 4096, Types{In: BF16, Out: BF16})
	_, err := pl.PlanKernel(&aligned, name, 1)
	require.ErrorIs(t, err, ErrNoKernel, "operands TMA reads as they are")
	assert.Contains(t, err.Error(), "16-byte aligned")

	p := PlaceholderProblem(300, 769, 5125, Types{In: BF16, Out: BF16}) // K·2 bytes not a multiple of 16: A and B copied
	out, err := pl.PlanKernel(&p, name, 2)
	require.NoError(t, err)
	ls := out.plannedLaunches()
	require.Len(t, ls, 3)
	assert.Equal(t, []launchFn{fnRepack, fnMain, fnReduce}, []launchFn{ls[0].fn, ls[1].fn, ls[2].fn})
	assert.Equal(t, k.RepackKernel, ls[0].name)
	const kp = 5128 // 5125 rounded up to 8 elements
	assert.Equal(t, [3]uint32{uint32(min(ceilDiv((300+769)*kp/8, 256), 132*16)), 1, 1}, ls[0].grid, "a grid-stride copy")
	assert.Equal(t, [3]uint32{uint32(ceilDiv(769, 128)), uint32(ceilDiv(300, 128)), 2}, ls[1].grid)
	partials := int64(2 * 300 * 769 * 4)
	offA := (partials + 255) / 256 * 256
	offB := (offA + 300*kp*2 + 255) / 256 * 256
	assert.Equal(t, packing{a: true, b: true, offA: offA, offB: offB, k: kp, rows: 300}, out.pack)
	assert.Equal(t, offB+769*kp*2, out.WorkspaceBytes)
	assert.Equal(t, kp/2/64*64+64, out.kPerSplit, "K per split over the pitch, in whole k-tiles")
	assert.Contains(t, out.Explain(), "copies A and B to the workspace at a pitch of 5128 elements")

	q := PlaceholderProblem(300, 768, 4096, Types{In: BF16, Out: BF16}) // only A misaligned: only A copied
	q.A += 2
	out, err = pl.PlanKernel(&q, name, 1)
	require.NoError(t, err)
	assert.Equal(t, packing{a: true, k: 4096, rows: 300}, out.pack)
	assert.Equal(t, int64(300*4096*2), out.WorkspaceBytes)
	assert.Contains(t, out.Explain(), "copies A to the workspace")
	assert.True(t, out.packsAsPlanned(&q))
	r := q
	r.A, r.B = r.A-2, r.B+2 // now B needs the copy and A does not
	assert.False(t, out.packsAsPlanned(&r), "a plan that copies A alone does not run a problem whose B needs copying")

	_, err = NewPlanner(cat, nil, H200, Limits{NoSplitK: true}).PlanKernel(&p, name, 1)
	require.ErrorIs(t, err, ErrNoKernel, "no workspace for the copies")
	assert.Contains(t, err.Error(), "the operand copies need")

	// M = 8192: the copy of A (84 MB) does not fit the default 32 MiB beside
	// B's (7.9 MB), so the plan runs in chunks of rows that do, a multiple of
	// the tile's 128; each launch covers one chunk.
	big := PlaceholderProblem(8192, 769, 5125, Types{In: BF16, Out: BF16})
	out, err = pl.PlanKernel(&big, name, 1)
	require.NoError(t, err)
	rows := (DefaultWorkspaceBytes - (769*kp*2+255)/256*256 - 256) / (kp * 2) / 128 * 128
	assert.Equal(t, packing{a: true, b: true, offB: int64(rows*kp*2+255) / 256 * 256, k: kp, rows: rows}, out.pack)
	assert.Equal(t, ceilDiv(8192, rows), out.pack.chunks(8192))
	assert.LessOrEqual(t, out.WorkspaceBytes, int64(DefaultWorkspaceBytes))
	ls = out.plannedLaunches()
	require.Len(t, ls, 2)
	assert.Equal(t, [3]uint32{uint32(ceilDiv(769, 128)), uint32(rows / 128), 1}, ls[1].grid, "the GEMM over one chunk's rows")
	assert.Equal(t, [3]uint32{uint32(min(ceilDiv((rows+769)*kp/8, 256), 132*16)), 1, 1}, ls[0].grid)
	assert.Contains(t, out.Explain(), fmt.Sprintf("these launches run %d times, over %d rows of A and D at a time", ceilDiv(8192, rows), rows))
	_, err = pl.PlanKernel(&big, name, 2)
	require.ErrorIs(t, err, ErrNoKernel, "split-K partials beside the copies: not chunked, over the cap")
	assert.Contains(t, err.Error(), "the operand copies need")
	onlyA := PlaceholderProblem(8192, 768, 5120, Types{In: BF16, Out: BF16}) // B suits TMA: only A copied, in chunks that fill the workspace
	onlyA.A += 2
	pkA := packPlan(&onlyA, 0, DefaultWorkspaceBytes, 128)
	assert.Equal(t, packing{a: true, k: 5120, rows: DefaultWorkspaceBytes / (5120 * 2) / 128 * 128}, pkA)
	assert.LessOrEqual(t, packEnd(&onlyA, pkA), int64(DefaultWorkspaceBytes))
	unchunked := packPlan(&big, 0, 0, 128)
	assert.Equal(t, 8192, unchunked.rows, "no limit: one chunk")
}

// seq is 0, 1, …, n − 1.
func seq(n int) []int64 {
	s := make([]int64, n)
	for i := range s {
		s[i] = int64(i)
	}
	return s
}

// catalogKernel is the default catalog and its kernel of that name (the
// test fails where there is none).
func catalogKernel(t *testing.T, name string) (*kernels.Catalog, *kernels.KernelSpec) {
	t.Helper()
	cat, err := DefaultCatalog()
	require.NoError(t, err)
	k := cat.Kernel(name)
	require.NotNil(t, k, name)
	return cat, k
}

// TestSplitFixedWalk models ws_split_fixed's walk (kernels/src/
// ws_splitfixed.cuh) on the grid the plan gives and on others: every tile's
// parts cover its K once, over the workspace split-K's K ranges (the plan's
// K per split). Across (fewer tiles than blocks), the parts are units
// u = j·T + i shared round-robin, each stored to slot u, and whichever
// arrives last sums them: every tile's parts arrive once, the counters fit
// kernels.StreamKFlags. Along, a block runs each of its tiles' parts one
// after another in part order, its running sum in its own slot. Neither
// walk has a block wait for another; the slots fit the plan's workspace.
// The plan itself: one launch (no reduce), Params.SplitK 1 and the parts
// in Params.TailParts, G = min(SMs, T·S) — or T, along, where across's
// slots would pass the workspace limit.
func TestSplitFixedWalk(t *testing.T) {
	const name = "gemmroute_sm90_ws_wgmma_ks_ts_bf16_bf16_f32_tn_128x128x64_w12_s6_a16"
	cat, k := catalogKernel(t, name)
	require.True(t, k.SplitFixed() && k.MaxSplitK > 1 && k.ReduceKernel == "" && k.ReductionClass != "")
	consumers := int64(k.Threads/128 - 1)
	rng := rand.New(rand.NewPCG(5, 7))
	walks, byLimit := map[bool]int{}, 0         // plans by walk; plans along for the limit's sake
	for _, limit := range []int64{0, 4 << 20} { // the default, and one that keeps across's slots out at a few tiles
		pln := NewPlanner(cat, nil, H200, Limits{WorkspaceBytes: limit})
		for _, c := range [][3]int{{1, 4096, 4096}, {7, 776, 5128}, {300, 5120, 4096}, {129, 4096, 4096}, {1024, 4096, 4096}, {4096, 14336, 4096}, {129, 384, 128}, {600, 10240, 1032}} {
			for s := 1; s <= 8; s++ {
				m, n, kk := c[0], c[1], c[2]
				p := PlaceholderProblem(m, n, kk, Types{In: BF16, Out: BF16})
				pl, err := pln.PlanKernel(&p, name, s)
				if limit > 0 && err != nil { // the small limit refuses some splits outright
					continue
				}
				require.NoError(t, err)
				what := fmt.Sprintf("M=%d N=%d K=%d S=%d limit=%d", m, n, kk, s, limit)
				s := pl.SplitK // after the plan's rounding (no empty part)
				require.Len(t, pl.plannedLaunches(), 1, what)
				require.Equal(t, [2]int{1, s}, [2]int{pl.kernelSplitK(), pl.tailParts}, what)
				kps := int64(pl.kPerSplit)
				all := int64(ceilDiv(m, k.TileM)) * int64(ceilDiv(n, k.TileN))
				plan := int(pl.plannedLaunches()[0].grid[0])
				if g := min(int64(H200.SMs), all*int64(s)); g > all && all*int64(s)*partialTileBytes(k) > (Limits{WorkspaceBytes: limit}).workspaceLimit() {
					require.Equal(t, all, int64(plan), what)
					byLimit++
				} else {
					require.Equal(t, g, int64(plan), what)
				}
				for _, g := range []int{plan, 114, 8, int(all) * s} {
					what := fmt.Sprintf("%s G=%d", what, g)
					across := all < int64(g) && all*3 <= int64(kernels.StreamKFlags) // the kernel's test
					require.Equal(t, splitFixedAcross(g, all), across, what)
					if g == plan {
						walks[across]++
					}
					covered := make([]int64, all) // K elements per tile
					slots := int64(0)             // slots written
					if across {
						require.LessOrEqual(t, all*consumers, int64(kernels.StreamKFlags), what)
						arrived := make([][]int64, all) // parts in the order they arrive
						units := make([][]int64, g)
						for u := range all * int64(s) {
							units[u%int64(g)] = append(units[u%int64(g)], u)
						}
						for _, b := range rng.Perm(g) { // blocks in any order: none waits
							for _, u := range units[b] {
								arrived[u%all] = append(arrived[u%all], u/all)
								slots = max(slots, u+1)
							}
						}
						for tile, a := range arrived { // each part once: the last to arrive reads the others' slots
							require.ElementsMatch(t, seq(s), a, "%s: tile %d", what, tile)
							for _, x := range a {
								covered[tile] += min(int64(kk), (x+1)*kps) - x*kps
							}
						}
					} else {
						for b := int64(0); b < int64(g); b++ {
							for tile := b; tile < all; tile += int64(g) {
								for j := range int64(s) { // a tile's parts in order, the running sum in slot b
									covered[tile] += min(int64(kk), (j+1)*kps) - j*kps
									slots = max(slots, b+1)
								}
							}
						}
					}
					for tile, e := range covered {
						require.Equal(t, int64(kk), e, "%s: tile %d", what, tile)
					}
					if g == plan && s > 1 {
						assert.Equal(t, slots*partialTileBytes(k), pl.WorkspaceBytes, what)
						assert.LessOrEqual(t, pl.WorkspaceBytes, (Limits{WorkspaceBytes: limit}).workspaceLimit(), what)
					}
				}
				if s == 1 {
					assert.Zero(t, pl.WorkspaceBytes, what)
				}
			}
		}
	}
	require.Positive(t, walks[true], "no plan walked across")
	require.Positive(t, walks[false], "no plan walked along")
	require.Positive(t, byLimit, "no plan walked along for the workspace limit's sake")
}
