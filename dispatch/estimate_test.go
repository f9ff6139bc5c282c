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
