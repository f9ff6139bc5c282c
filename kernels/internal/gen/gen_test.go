package main

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gemmroute/gemmroute/dispatch"
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
	var m dispatch.Manifest
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
	cat, err := dispatch.ParseManifest(kernels.Manifest)
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
