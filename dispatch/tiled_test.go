package dispatch

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gemmroute/gemmroute/kernels"
)

// llamaShapes are Llama-3-8B's projections (N, K): qkv, o, gate_up, down.
var llamaShapes = [][2]int{{6144, 4096}, {4096, 4096}, {28672, 4096}, {4096, 14336}}

// withTiledRegisters returns the embedded catalog with every tiled kernel's
// register count set to regs (0: as the manifest says).
func withTiledRegisters(t *testing.T, regs int) *kernels.Catalog {
	cat, err := DefaultCatalog()
	require.NoError(t, err)
	if regs == 0 {
		return cat
	}
	m := cat.Manifest()
	for i := range m.Kernels {
		if tiled(&m.Kernels[i]) {
			m.Kernels[i].Registers = regs
		}
	}
	cat, err = kernels.NewCatalog(m)
	require.NoError(t, err)
	return cat
}

// The heuristic level (no table) sends Llama-3-8B shapes to the decode
// families up to M = 16 and to a tiled or warp-specialized (ws_wgmma,
// Hopper only) family from M = 32 on, in both dtypes, on Hopper and Ampere,
// whether the tiled kernels' registers are unknown or limit them to one
// block per SM.
func TestHeuristicRoutesTiledFromM32(t *testing.T) {
	for _, regs := range []int{0, 255} {
		cat := withTiledRegisters(t, regs)
		for _, dev := range []DeviceInfo{H200, A100} {
			pl := NewPlanner(cat, nil, dev, Limits{})
			for _, dt := range []DType{BF16, F16} {
				for _, s := range llamaShapes {
					for _, m := range []int{1, 2, 4, 8, 16, 32, 64, 128, 256, 1024, 4096, 8192} {
						p := testProblem(m, s[0], s[1])
						p.Types.In, p.Types.Out = dt, dt
						out, err := pl.Plan(&p)
						require.NoError(t, err)
						want := []string{"decode"}
						if m >= 32 {
							want = []string{"tiled"}
							if dev.Arch == SM90 {
								want = append(want, "ws_wgmma")
							}
						}
						assert.True(t, slices.ContainsFunc(want, func(w string) bool { return strings.HasPrefix(out.Kernel.Family, w) }),
							"registers %d, %s %s M=%d N=%d K=%d: %s (split-K %d)", regs, dev.Arch, dt, m, s[0], s[1], out.Kernel.Name, out.SplitK)
					}
				}
			}
		}
	}
}

// The tiled model stays a model of a compute-bound kernel at large M: for
// tiles of 64×128 and up, the estimate of a big square problem is within
// 1.2× of its flops at the family's rate (smaller tiles are bound by their
// L2 re-reads); and a larger tile of the same family and image never gets a
// lower rate.
func TestEstimateTiledComputeBound(t *testing.T) {
	cat, err := DefaultCatalog()
	require.NoError(t, err)
	p := testProblem(8192, 8192, 8192)
	flops := 2 * float64(p.M) * float64(p.N) * float64(p.K)
	n := 0
	for _, k := range cat.Kernels() {
		if !tiled(&k) || k.In != BF16 || !k.RunsOn(H200.Arch) || k.PtrAlign < 16 || k.TileM*k.TileN < 64*128 {
			continue
		}
		n++
		rate := kernelRate(&k, H200.PeakFLOPS)
		est := EstimateSeconds(&k, &p, 1, H200)
		assert.InDelta(t, 1, est/(flops/rate), 0.2, "%s: estimate %.0f µs, flops at its rate %.0f µs", k.Name, est*1e6, flops/rate*1e6)
		for _, o := range cat.Kernels() {
			if o.Family == k.Family && o.Image == k.Image && o.TileM >= k.TileM && o.TileN >= k.TileN && o.PtrAlign == k.PtrAlign {
				assert.GreaterOrEqual(t, kernelRate(&o, 1), kernelRate(&k, 1), "%s vs %s", o.Name, k.Name)
			}
		}
	}
	require.Positive(t, n)
}

// A tiled kernel launches on grid (N tiles, M tiles, split-K) with its
// threads and its dynamic shared memory (> 48 KiB for the deep pipelines:
// the engine raises the function's limit once, when it resolves it).
func TestTiledGeometry(t *testing.T) {
	cat, err := DefaultCatalog()
	require.NoError(t, err)
	pl := NewPlanner(cat, nil, H200, Limits{})
	big := 0
	for _, k := range cat.Kernels() {
		if !tiled(&k) || !k.RunsOn(H200.Arch) {
			continue
		}
		for _, c := range []struct{ m, n, kk, split int }{{4096, 4096, 4096, 1}, {33, 769, 5125, 3}, {1, 1, 1, 1}} {
			p := testProblem(c.m, c.n, c.kk)
			if k.PtrAlign < 16 {
				p.LDA, p.LDB = c.kk, c.kk
			}
			if pl.CheckKernel(&k, &p, c.split) != "" {
				continue
			}
			name := fmt.Sprintf("%s M=%d N=%d K=%d", k.Name, c.m, c.n, c.kk)
			out, err := pl.PlanKernel(&p, k.Name, c.split)
			require.NoError(t, err, name)
			checkPlan(t, pl, &p, out, nil)
			if !k.Persistent { // TestPersistentGrid has those
				assert.Equal(t, [3]uint32{uint32(ceilDiv(c.n, k.TileN)), uint32(ceilDiv(c.m, k.TileM)), uint32(out.SplitK)}, out.mainLaunch().grid, name)
			}
			assert.Equal(t, [3]uint32{uint32(k.Threads), 1, 1}, out.mainLaunch().block, name)
			assert.Equal(t, k.SmemBytes, out.mainLaunch().smemBytes, name)
			if out.SplitK > 1 {
				assert.Zero(t, out.kPerSplit%k.TileK, "%s: K per split a multiple of the k-tile", name)
			}
		}
		if k.SmemBytes > 48<<10 {
			big++
		}
	}
	assert.Positive(t, big, "some tiled kernel needs the >48 KiB opt-in")
}
