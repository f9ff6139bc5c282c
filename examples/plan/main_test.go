package main

import (
	"bytes"
	"encoding/base64"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gemmroute/gemmroute/dispatch"
	"github.com/gemmroute/gemmroute/kernels"
)

func TestRun(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(&out))
	text := out.String()
	assert.Contains(t, text, "NVIDIA H200 (sm_90")
	assert.Contains(t, text, "NVIDIA A100")
	rows := 0
	for line := range strings.Lines(text) {
		if strings.Contains(line, "×") && !strings.HasPrefix(line, "proj") {
			rows++
			assert.NotContains(t, line, "error", "the default table and catalog must plan every Llama-3-8B shape")
		}
	}
	assert.Equal(t, 2*4*14, rows)

	// Each device's rows say where their choices came from, and the
	// A100's are not said to be the H200's measurements.
	h200, a100, ok := strings.Cut(text, "NVIDIA A100")
	require.True(t, ok)
	assert.Equal(t, 56, measuredRows(t, h200, "exact entries: measured on NVIDIA H"), "every sm_90 row measured (on an H100 or H200, any date):\n%s", h200)
	assert.Contains(t, a100, "56 rows: exact entries: the analytic model's choice for NVIDIA A100-SXM4-80GB (2026-11-30), not measured\n")
	assert.NotContains(t, a100, "H200")
	assert.NotContains(t, text, "table: measured")
}

// measuredRows sums the counts of text's source lines ("N rows: SOURCE")
// whose source starts with prefix.
func measuredRows(t *testing.T, text, prefix string) int {
	t.Helper()
	sum := 0
	for line := range strings.Lines(text) {
		n, source, ok := strings.Cut(strings.TrimSuffix(line, "\n"), " rows: ")
		if !ok || !strings.HasPrefix(source, prefix) {
			continue
		}
		k, err := strconv.Atoi(n)
		require.NoError(t, err, line)
		sum += k
	}
	return sum
}

// A plan routed to cuBLASLt (an engine's planner makes them from a table
// with vendor buckets) has no Kernel: its row names the algorithm as
// Explain does.
func TestPlanCellsVendor(t *testing.T) {
	v := &dispatch.Vendor{Algo: base64.StdEncoding.EncodeToString(make([]byte, dispatch.VendorAlgoBytes)), Version: 120804}
	cells := planCells(dispatch.Plan{Vendor: v, SplitK: 1, Level: dispatch.LevelExact})
	assert.Equal(t, "exact\t\t1\tcuBLASLt 12.8.4 algorithm f5a5fd42", cells)
	assert.Equal(t, "exact\t\t1\tk", planCells(dispatch.Plan{Kernel: &kernels.KernelSpec{Name: "k"}, SplitK: 1, Level: dispatch.LevelExact}))
}
