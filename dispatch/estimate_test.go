package dispatch

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gemmroute/gemmroute/kernels"
)

// The model's family-dependent terms come from the kernel's Model: its rate
// share scales a compute-bound estimate, its stream share a memory-bound
// one, its raster group the weight traffic of a many-M-tile problem; a kind
// the model does not know estimates +Inf (never chosen).
func TestEstimateReadsModel(t *testing.T) {
	cat, err := DefaultCatalog()
	require.NoError(t, err)
	var decode, tiledK *kernels.KernelSpec
	for _, k := range cat.Kernels() {
		if !k.RunsOn(H200.Arch) || k.In != BF16 || k.PtrAlign < 16 {
			continue
		}
		if k.Model.Kind == kernels.ModelDecode && decode == nil {
			decode = &k
		}
		if k.Model.Kind == kernels.ModelTiled && k.TileM*k.TileN >= 128*128 && tiledK == nil {
			tiledK = &k
		}
	}
	require.NotNil(t, decode)
	require.NotNil(t, tiledK)
	edit := func(k *kernels.KernelSpec, f func(m *kernels.Model)) *kernels.KernelSpec {
		c := *k
		f(&c.Model)
		return &c
	}

	big := testProblem(8192, 8192, 8192)
	base := EstimateSeconds(tiledK, &big, 1, H200)
	half := EstimateSeconds(edit(tiledK, func(m *kernels.Model) { m.RateShare /= 2 }), &big, 1, H200)
	assert.InDelta(t, 2, (half-2e-6)/(base-2e-6), 0.01, "%s: half the rate share, twice the compute-bound time", tiledK.Name)
	mid := testProblem(1024, 28672, 4096)
	ungrouped := EstimateSeconds(edit(tiledK, func(m *kernels.Model) { m.RasterGroup = 1 }), &mid, 1, H200)
	assert.Greater(t, ungrouped, EstimateSeconds(tiledK, &mid, 1, H200), "%s: without grouping the weights stream once per M tile", tiledK.Name)

	skinny := testProblem(1, 28672, 4096)
	base = EstimateSeconds(decode, &skinny, 1, H200)
	slow := EstimateSeconds(edit(decode, func(m *kernels.Model) { m.StreamShare /= 2 }), &skinny, 1, H200)
	assert.Greater(t, slow, 1.5*base, "%s: half the stream share, a memory-bound call slower", decode.Name)

	for _, kind := range []string{"", "tiled_mma"} {
		k := edit(decode, func(m *kernels.Model) { m.Kind = kind })
		assert.True(t, math.IsInf(EstimateSeconds(k, &skinny, 1, H200), 1), "kind %q", kind)
	}
}

// A stream-K kernel has no partial last wave: where its data-parallel twin
// leaves most SMs idle through a second wave (192 tiles on 132 SMs), the
// model puts it ahead by what its tail costs (tailCost: each part's fixed
// cost and partial round trip): at M = 1024, N = 6144 call T513 measured
// 0.87 of the twin's time on an H100 (docs/perf/2026-12-08-h100), and the
// model says 0.87; where the tiles fill the waves it pays nothing (whole
// tiles, no partials). (With few tiles, 16 on 132 SMs, the tail model puts
// an 8-way split behind the twin on 16 SMs; nothing measured decides that
// case, so it is not asserted.)
func TestEstimateStreamKHasNoPartialWave(t *testing.T) {
	cat, err := DefaultCatalog()
	require.NoError(t, err)
	dp := cat.Kernel("gemmroute_sm90_ws_wgmma_bf16_bf16_f32_tn_128x256x64_w12_s4_a16")
	sk := cat.Kernel("gemmroute_sm90_ws_wgmma_sk_bf16_bf16_f32_tn_128x256x64_w12_s4_a16")
	require.NotNil(t, dp)
	require.NotNil(t, sk)
	p := PlaceholderProblem(1024, 6144, 4096, Types{In: BF16, Out: BF16})
	tDP, tSK := EstimateSeconds(dp, &p, 1, H100), EstimateSeconds(sk, &p, 1, H100)
	assert.InDelta(t, 0.87, tSK/tDP, 0.04, "stream-K %.1f µs, data-parallel %.1f µs", tSK*1e6, tDP*1e6)
	p = PlaceholderProblem(33*128, 1024, 4096, Types{In: BF16, Out: BF16}) // 132 tiles: one full wave either way
	assert.InDelta(t, EstimateSeconds(dp, &p, 1, H200), EstimateSeconds(sk, &p, 1, H200), 1e-9)
}
