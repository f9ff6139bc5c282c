package kernels

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A catalog shares nothing mutable with its callers: neither the manifest
// passed to NewCatalog nor what Manifest and Kernels return can change it.
func TestCatalogReadOnly(t *testing.T) {
	m := Manifest{Schema: SchemaVersion, SourceHash: "h1",
		Images: []Image{{File: "sm90.fatbin", Targets: []string{"sm_90a"}, SmemLimit: 227 << 10}},
		Kernels: []KernelSpec{{Name: "k90_bf16", Image: "sm90.fatbin", Family: "test", MinArch: SM90, In: BF16, Out: BF16,
			Layout: LayoutTN, TileM: 16, TileN: 64, TileK: 64, Stages: 2, Threads: 128,
			PtrAlign: 16, LDAlign: 16, KMultiple: 8, MaxSplitK: 1, Reduction: ReduceNone, IndexBits: 32,
			Model: Model{Kind: ModelTiled, RateShare: 0.5, StreamShare: 0.8, RasterGroup: 8}, Digest: DigestOf(nil)}}}
	fp8 := m.Kernels[0]
	fp8.Name, fp8.In, fp8.Scalings = "k90_e4m3", E4M3, []Scaling{ScalingTensor, ScalingRow}
	m.Kernels = append(m.Kernels, fp8)
	c, err := NewCatalog(m)
	require.NoError(t, err)

	m.Kernels[0].TileM = 999 // the caller's manifest, after NewCatalog
	m.Images[0].Targets[0] = "sm_00"
	m.Kernels[1].Scalings[0] = ScalingBlock
	ks := c.Kernels()
	ks[0].TileM = 998
	ks[1].Scalings[1] = ScalingBlock
	got := c.Manifest()
	got.Kernels[0].TileM = 997
	got.Kernels[1].Scalings[0] = ScalingBlock
	got.Images[0].Targets[0] = "sm_01"
	got.SourceHash = "h2"

	assert.Equal(t, 16, c.Kernel("k90_bf16").TileM)
	assert.Equal(t, 16, c.Kernels()[0].TileM)
	again := c.Manifest()
	assert.Equal(t, 16, again.Kernels[0].TileM)
	assert.Equal(t, []string{"sm_90a"}, again.Images[0].Targets)
	assert.Equal(t, "h1", again.SourceHash)
	want := []Scaling{ScalingTensor, ScalingRow}
	assert.Equal(t, want, c.Kernel("k90_e4m3").Scalings, "neither the caller's manifest nor a copy shares the catalog's scalings")
	assert.Equal(t, want, c.Kernels()[1].Scalings)
	assert.Equal(t, want, again.Kernels[1].Scalings)
	assert.Same(t, c.Kernel("k90_bf16"), c.Kernel("k90_bf16"), "Kernel returns the catalog's own spec")
}
