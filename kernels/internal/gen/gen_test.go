package main

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gemmroute/gemmroute/kernels"
)

// The committed generated source must be what the instance list renders.
func TestInstancesCUUpToDate(t *testing.T) {
	got, err := os.ReadFile("../../src/instances_gen.cu")
	require.NoError(t, err)
	require.Equal(t, string(instancesCU()), string(got), "kernels/src/instances_gen.cu is stale: run `go generate ./kernels`")
}

// The manifest must list what the instance list declares.
func TestManifestListsInstances(t *testing.T) {
	var m kernels.Manifest
	b, err := os.ReadFile("../../manifest.json")
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &m))
	regs := map[string]int{}
	for _, k := range m.Kernels {
		regs[k.Name] = k.Registers
	}
	want, err := manifestJSON(buildInfo{hash: m.SourceHash, nvcc: m.NVCC, date: m.Built, registers: regs})
	require.NoError(t, err)
	require.JSONEq(t, string(want), string(b), "kernels/manifest.json is stale: run `go generate ./kernels`")
}

// The fatbins must have been built from the sources as they are now.
func TestFatbinsBuiltFromCurrentSources(t *testing.T) {
	cat, err := kernels.ParseManifest(kernels.ManifestJSON)
	require.NoError(t, err)
	h, err := kernels.SourceHash(os.DirFS("../../src"))
	require.NoError(t, err)
	require.Equal(t, h, cat.Manifest.SourceHash,
		"kernel sources changed since the fatbins were built: run `bash kernels/build.sh` on a machine with nvcc ≥ 12 and commit kernels/images and kernels/manifest.json")
	for _, im := range cat.Manifest.Images {
		fi, err := kernels.Images.Open("images/" + im.File)
		require.NoError(t, err, "image %s missing", im.File)
		st, err := fi.Stat()
		require.NoError(t, err)
		require.Greater(t, st.Size(), int64(1024), "image %s is empty", im.File)
	}
}

// Every tiled_mma instance satisfies the template's static_asserts (so a
// bad tile fails here, not in nvcc on the GPU runner) and its manifest entry
// says what tiled_mma.cuh's header promises.
func TestTiledInstances(t *testing.T) {
	perDType := map[kernels.DType][]string{}
	for _, in := range instances() {
		if in.family != "tiled_mma" {
			continue
		}
		name := in.suffix()
		perDType[in.in] = append(perDType[in.in], name[len("tiled_mma_")+len(in.in.String()+"_"+in.out.String()):])
		threads, cpr := in.warps*32, in.bk/8
		require.Equal(t, in.wm*in.wn, in.warps, name)
		require.Zero(t, in.tm%(16*in.wm), "%s: warp tile rows are a multiple of 16", name)
		require.Zero(t, in.tn%(16*in.wn), "%s: warp tile columns are a multiple of 16", name)
		require.True(t, in.bk >= 16 && in.bk&(in.bk-1) == 0, "%s: BK is a power of two ≥ 16", name)
		require.GreaterOrEqual(t, in.stages, 2, name)
		step := threads / cpr
		require.Zero(t, threads%cpr, name)
		require.Zero(t, in.tm%step, "%s: the threads tile A's chunks", name)
		require.Zero(t, in.tn%step, "%s: the threads tile B's chunks", name)

		k := in.spec(images[0])
		require.Equal(t, in.stages*(in.tm+in.tn)*in.bk*in.in.Size(), k.SmemBytes, name)
		require.LessOrEqual(t, k.SmemBytes, images[0].smemLimit, "%s: fits sm_80's opt-in shared memory", name)
		require.Equal(t, in.stages, k.Stages, name)
		require.Equal(t, in.tn*in.bk*in.in.Size()/threads, k.LoadBytes, name)
		require.Equal(t, 16, k.MaxSplitK, name)
		require.Equal(t, 64, k.IndexBits, name)
		if in.aligned {
			require.Equal(t, [3]int{16, 16, 8}, [3]int{k.PtrAlign, k.LDAlign, k.KMultiple}, name)
		} else {
			require.Equal(t, [3]int{in.in.Size(), in.in.Size(), 1}, [3]int{k.PtrAlign, k.LDAlign, k.KMultiple}, name)
		}
		require.Contains(t, string(instancesCU()), fmt.Sprintf("__launch_bounds__(%d) GR_NAME(GR_ARCH, %s)", threads, name))
	}
	require.NotEmpty(t, perDType[kernels.BF16])
	require.Equal(t, perDType[kernels.BF16], perDType[kernels.F16], "both dtypes get the same tiles")
}
