package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gemmroute/gemmroute/dispatch"
)

func TestReadShapesTheSharedFormat(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shapes.csv")
	require.NoError(t, os.WriteFile(path, []byte("name,M,N,K,dtype\nqkv,1,6144,4096,bf16\no,16,4096,4096,fp16\nx,2,8,8,\n"), 0o644))
	got, err := readShapes(path)
	require.NoError(t, err)
	assert.Equal(t, []shape{{"qkv", 1, 6144, 4096, dispatch.BF16}, {"o", 16, 4096, 4096, dispatch.F16}, {"x", 2, 8, 8, dispatch.BF16}}, got)

	require.NoError(t, os.WriteFile(path, []byte("name,M,N,K\nqkv,one,6144,4096\n"), 0o644))
	_, err = readShapes(path)
	assert.ErrorContains(t, err, "shapes.csv:2")
	require.NoError(t, os.WriteFile(path, []byte("name,M,N\nqkv,1,6144\n"), 0o644))
	_, err = readShapes(path)
	assert.ErrorContains(t, err, `no "K" column`)
}

func TestReadPeerAndWriteResults(t *testing.T) {
	dir := t.TempDir()
	peerPath := filepath.Join(dir, "peer.csv")
	require.NoError(t, os.WriteFile(peerPath, []byte("name,M,N,K,dtype,graph_us,events_us\nqkv,1,6144,4096,bf16,17.09,22.1\nqkv,1,6144,4096,fp16,16.5,22.0\n"), 0o644))
	peer, err := readPeer(peerPath)
	require.NoError(t, err)
	assert.Equal(t, 17.09, peer[peerKey("qkv", 1, 6144, 4096, dispatch.BF16)])
	assert.Equal(t, 16.5, peer[peerKey("qkv", 1, 6144, 4096, dispatch.F16)], "peer_cublas.py spells f16 fp16")
	require.NoError(t, os.WriteFile(peerPath, []byte("name,M,N,K,dtype,graph_us\nqkv,1,6144,4096,fp8x,1\n"), 0o644))
	_, err = readPeer(peerPath)
	assert.ErrorContains(t, err, "peer.csv:2")

	out := filepath.Join(dir, "bench.csv")
	r := benchResult{shape: shape{"qkv", 1, 6144, 4096, dispatch.BF16}, kernel: "k", splitK: 1, level: "exact",
		graphUS: 13.86, graphP90: 13.99, evUS: 20, evP90: 21, floorUS: 11.09, peerUS: 17.09}
	require.NoError(t, writeResults(out, []benchResult{r}))
	rows, col, err := readCSV(out, "speedup_vs_cublas", "roofline_pct", "gbps")
	require.NoError(t, err)
	require.Len(t, rows, 1)
	assert.Equal(t, "1.233", rows[0][col["speedup_vs_cublas"]])
	assert.Equal(t, "80.014", rows[0][col["roofline_pct"]])
	assert.Equal(t, "3632.910", rows[0][col["gbps"]]) // 2·(4096+6144·4096+6144) B / 13.86 µs
}

func TestQuantiles(t *testing.T) {
	xs := []float64{5, 1, 4, 2, 3, 10, 9, 8, 7, 6}
	assert.Equal(t, 6.0, median(xs))
	assert.Equal(t, 10.0, p90(xs))
	assert.Equal(t, []float64{5, 1, 4, 2, 3, 10, 9, 8, 7, 6}, xs, "callers' slices are not reordered")
}
