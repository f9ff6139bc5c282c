package main

import (
	"encoding/base64"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gemmroute/gemmroute/autotune/report"
	"github.com/gemmroute/gemmroute/autotune/tuning"
	"github.com/gemmroute/gemmroute/autotune/tuning/tuningtest"
	"github.com/gemmroute/gemmroute/dispatch"
	"github.com/gemmroute/gemmroute/kernels"
)

// Where the router's plan is ours, our kernels alone run the same plan:
// bench copies the router's columns and times nothing more; where it is
// routed to cuBLASLt, bench measures our kernels alone once, and an error
// there names both.
func TestSetKernelsOnly(t *testing.T) {
	row := func() report.BenchRow {
		return report.BenchRow{Shape: tuning.Shape{Name: "o", M: 64, N: 4096, K: 4096, Types: tuningtest.Types("bf16")}, GraphUS: 12, GraphP90: 13, PeerUS: 11.9}
	}
	ours := dispatch.Plan{Kernel: &kernels.KernelSpec{Name: "k64"}, SplitK: 2, Level: dispatch.LevelDefault}
	calls := 0
	measure := func() (dispatch.Plan, tuning.Timing, error) {
		calls++
		return ours, tuning.Timing{Median: 14, P90: 15}, nil
	}

	r := row()
	r.SetPlan(ours)
	require.NoError(t, setKernelsOnly(&r, ours, measure))
	assert.Zero(t, calls, "one plan is timed once")
	assert.Equal(t, report.KernelsOnly{Kernel: "k64", SplitK: 2, Level: "default entry", GraphUS: 12, GraphP90: 13}, r.KernelsOnly)
	assert.False(t, r.KernelsOnlyDiffers())

	vendor := dispatch.Plan{Vendor: &dispatch.Vendor{Algo: base64.StdEncoding.EncodeToString(make([]byte, dispatch.VendorAlgoBytes)), Version: 120804},
		SplitK: 1, Level: dispatch.LevelExact}
	r = row()
	r.SetPlan(vendor)
	require.NoError(t, setKernelsOnly(&r, vendor, measure))
	assert.Equal(t, 1, calls)
	assert.Equal(t, report.KernelsOnly{Kernel: "k64", SplitK: 2, Level: "default entry", GraphUS: 14, GraphP90: 15}, r.KernelsOnly)
	assert.True(t, r.KernelsOnlyDiffers())
	assert.Equal(t, "cublaslt:12.8.4:f5a5fd42", r.Kernel, "the router's columns stay the router's")

	r = row()
	boom := errors.New("boom")
	err := setKernelsOnly(&r, vendor, func() (dispatch.Plan, tuning.Timing, error) { return dispatch.Plan{}, tuning.Timing{}, boom })
	require.ErrorIs(t, err, boom)
	assert.ErrorContains(t, err, "our kernels alone (an engine opened with Options.NoVendor), the router having planned cublaslt:12.8.4:f5a5fd42: boom")
	assert.Zero(t, r.KernelsOnly)
}
