package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gemmroute/gemmroute/autotune/tuning"
	"github.com/gemmroute/gemmroute/autotune/tuning/tuningtest"
	"github.com/gemmroute/gemmroute/dispatch"
	"github.com/gemmroute/gemmroute/kernels"
)

// tuneFiles writes tuningtest's manifest and testdata/tune-base.yaml into a
// fresh directory. The base has an sm_80 default, an sm_90 entry for a shape
// no test tunes (both must survive a merge) and a stale sm_90 qkv entry (to
// be replaced).
func tuneFiles(t *testing.T) (dir, manifest, base string) {
	dir = t.TempDir()
	data, err := json.Marshal(tuningtest.Manifest())
	require.NoError(t, err)
	return dir, writeFile(t, dir, "manifest.json", string(data)), writeFile(t, dir, "base.yaml", readFile(t, "testdata/tune-base.yaml"))
}

// writeFile writes text to dir/name and returns the path.
func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	return p
}

// readFile returns the file's text.
func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(data)
}

// loadTuned loads the table a tune wrote to path against tuningtest's
// kernels, and returns the catalog too.
func loadTuned(t *testing.T, path string) (*dispatch.Table, *kernels.Catalog) {
	t.Helper()
	cat, err := tuningtest.Catalog()
	require.NoError(t, err)
	tab, err := loadTable(path, cat)
	require.NoError(t, err)
	return tab, cat
}

// withGPUs injects measurers into the tune command.
func withGPUs(t *testing.T, gpus ...*tuningtest.GPU) {
	old := openMeasurers
	t.Cleanup(func() { openMeasurers = old })
	openMeasurers = func(devices []int, workspace int64, vendor bool) ([]tuning.Measurer, func(), error) {
		require.Len(t, devices, len(gpus))
		ms := make([]tuning.Measurer, len(gpus))
		for i, g := range gpus {
			ms[i] = g
		}
		return ms, func() {}, nil
	}
}
