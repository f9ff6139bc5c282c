package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPointsCommand(t *testing.T) {
	dir := t.TempDir()
	// points needs no GPU: the points peer_cublas.py should time.
	pts := filepath.Join(dir, "points.csv")
	code, _, stderr := runCLI("points", "-model", "llama3-8b", "-max-m", "8", "-out", pts)
	require.Equal(t, 0, code, stderr)
	data, err := os.ReadFile(pts)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(data), "name,M,N,K,dtype\nl3-8b.qkv,1,6144,4096,bf16\nl3-8b.qkv,2,6144,4096,bf16\n"))
	assert.Contains(t, string(data), "l3-8b.down,6,4096,14336,bf16\n", "probe Ms too")
	code, _, stderr = runCLI("points", "-model", "llama3-8b", "-dtypes", "f16", "-max-m", "1", "-out", pts)
	require.Equal(t, 0, code, stderr)
	data, err = os.ReadFile(pts)
	require.NoError(t, err)
	assert.Contains(t, string(data), "l3-8b.qkv,1,6144,4096,fp16\n", "in peer_cublas.py's spelling")
	code, _, stderr = runCLI("points", "-model", "llama3-8b")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "-out is required")
}
