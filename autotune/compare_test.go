package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
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
	assert.Contains(t, out, "| sm_80 bf16→bf16 default | [1, 16] | 16 | 20.00 | 21.00 | +5.0 % ✗ |")
	assert.Contains(t, errOut, "1 of 3 points slower by more than 3.0 %")

	code, _, _ = runCLI("compare", old, slower, "-manifest", testManifest, "-threshold", "6")
	assert.Equal(t, 0, code, "5 % is within a 6 % threshold")

	code, _, errOut = runCLI("compare", old, writeFile(t, dir, "bad.yaml", "provenance: {}\n"), "-manifest", testManifest)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "bad.yaml")
}
