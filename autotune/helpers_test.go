package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gemmroute/gemmroute/autotune/tuning"
	"github.com/gemmroute/gemmroute/autotune/tuning/tuningtest"
)

// tuneBase has an sm_80 default, an sm_90 entry for a shape no test tunes
// (both must survive a merge) and a stale sm_90 qkv entry (to be replaced).
const tuneBase = `provenance:
  source: test
entries:
  - arch: sm_80
    in: bf16
    out: bf16
    layout: tn
    buckets:
      - min_m: 1
        kernel: t80_mma
        split_k: 1
  - arch: sm_90
    in: bf16
    out: bf16
    layout: tn
    n: 1024
    k: 1024
    buckets:
      - min_m: 1
        kernel: t90_big
        split_k: 1
  - arch: sm_90
    in: bf16
    out: bf16
    layout: tn
    n: 6144
    k: 4096
    buckets:
      - min_m: 1
        kernel: t90_any
        split_k: 1
`

// tuneFiles writes the test manifest and the base table.
func tuneFiles(t *testing.T) (dir, manifest, base string) {
	dir = t.TempDir()
	data, err := json.Marshal(tuningtest.Manifest())
	require.NoError(t, err)
	manifest, base = filepath.Join(dir, "manifest.json"), filepath.Join(dir, "base.yaml")
	require.NoError(t, os.WriteFile(manifest, data, 0o644))
	require.NoError(t, os.WriteFile(base, []byte(tuneBase), 0o644))
	return dir, manifest, base
}

// withGPUs injects measurers into the tune command.
func withGPUs(t *testing.T, gpus ...*tuningtest.GPU) {
	old := openMeasurers
	t.Cleanup(func() { openMeasurers = old })
	openMeasurers = func(devices []int, workspace int64) ([]tuning.Measurer, func(), error) {
		require.Len(t, devices, len(gpus))
		ms := make([]tuning.Measurer, len(gpus))
		for i, g := range gpus {
			ms[i] = g
		}
		return ms, func() {}, nil
	}
}
