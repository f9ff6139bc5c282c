package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const compareBase = `provenance:
  source: measured
entries:
  - arch: sm_80
    in: bf16
    out: bf16
    layout: tn
    buckets:
      - min_m: 1
        max_m: 16
        kernel: test_simt_bf16
        split_k: 1
        times_us:
          1: 10
          16: 20
      - min_m: 17
        kernel: test_mma_bf16
        split_k: 1
        times_us:
          64: 40
`

func writeTable(t *testing.T, dir, name, text string) string {
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	return p
}

func TestCompareExitCodes(t *testing.T) {
	dir := t.TempDir()
	old := writeTable(t, dir, "old.yaml", compareBase)
	same := writeTable(t, dir, "same.yaml", compareBase)
	slower := writeTable(t, dir, "slower.yaml", strings.Replace(compareBase, "16: 20", "16: 21", 1)) // +5 %

	code, out, _ := runCLI("compare", old, same, "-manifest", testManifest)
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "ok: 3 points")

	code, out, errOut := runCLI("compare", old, slower, "-manifest", testManifest, "-threshold", "3")
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "| sm_80 bf16→bf16 default | [1, 16] | 16 | 20.00 | 21.00 | +5.0 % ✗ |")
	assert.Contains(t, errOut, "1 of 3 points slower by more than 3.0 %")

	code, _, _ = runCLI("compare", old, slower, "-manifest", testManifest, "-threshold", "6")
	assert.Equal(t, 0, code, "5 % is within a 6 % threshold")

	code, _, errOut = runCLI("compare", old, writeTable(t, dir, "bad.yaml", "provenance: {}\n"), "-manifest", testManifest)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "bad.yaml")
}
