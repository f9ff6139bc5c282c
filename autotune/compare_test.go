package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/gemmroute/gemmroute/kernels"
)

func TestCompareExitCodes(t *testing.T) {
	dir := t.TempDir()
	compareBase := readFile(t, "testdata/compare.yaml")
	old := writeFile(t, dir, "old.yaml", compareBase)
	same := writeFile(t, dir, "same.yaml", compareBase)
	slower := writeFile(t, dir, "slower.yaml", strings.Replace(compareBase, "16: 20", "16: 21", 1)) // +5 %

	code, out, _ := runCLI("compare", old, same, "-manifest", testManifest)
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "ok: 3 points")

	code, out, errOut := runCLI("compare", old, slower, "-manifest", testManifest, "-threshold", "3")
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "| sm_80 bf16 default | [1, 16] | 16 | 20.00 | 21.00 | +5.0 % ✗ |")
	assert.Contains(t, errOut, "1 of 3 points slower by more than 3.0 %")

	code, _, _ = runCLI("compare", old, slower, "-manifest", testManifest, "-threshold", "6")
	assert.Equal(t, 0, code, "5 % is within a 6 % threshold")

	code, _, errOut = runCLI("compare", old, writeFile(t, dir, "bad.yaml", "provenance: {}\n"), "-manifest", testManifest)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "bad.yaml")

	// The model's guesses in place of measurements: listed, exit 1.
	guessed := "schema: 3\nprovenance:\n  source: measured\nentries:\n  - arch: sm_80\n    types: bf16\n    layout: tn\n    source: model\n    buckets:\n      - min_m: 1\n        kernel: test_simt_bf16\n        digest: " +
		kernels.DigestOf([]byte("test_simt_bf16")) + "\n        split_k: 1\n"
	code, out, errOut = runCLI("compare", old, writeFile(t, dir, "guessed.yaml", guessed), "-manifest", testManifest)
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "sm_80 bf16 default lost its measurements")
	assert.Contains(t, errOut, "1 entries lost their measurements")

	for _, bad := range []string{"NaN", "-1", "+Inf"} {
		code, _, errOut = runCLI("compare", old, same, "-manifest", testManifest, "-threshold", bad)
		assert.Equal(t, 2, code, bad)
		assert.Contains(t, errOut, "want a finite percentage", bad)
	}
}
