package main

import (
	"fmt"

	"github.com/gemmroute/gemmroute/autotune/report"
	"github.com/gemmroute/gemmroute/autotune/tuning"
	"github.com/gemmroute/gemmroute/dispatch"
)

// setKernelsOnly fills r's kernels-only columns, r's router columns being
// those of the router's plan. Where that plan is ours (not routed to
// cuBLASLt) they are a copy of the router's: an engine opened with
// dispatch.Options.NoVendor over the same table plans the same, since the
// planner's walk (exact entry, default entry, heuristic) differs between
// the two only at a bucket routed to cuBLASLt, which NoVendor passes over —
// and so did a router that did not stop at one. Timed once and copied, a
// table that routes no bucket to cuBLASLt costs the bench nothing extra.
// Else measure plans and times the GEMM on our kernels alone.
func setKernelsOnly(r *report.BenchRow, router dispatch.Plan, measure func() (dispatch.Plan, tuning.Timing, error)) error {
	if router.Vendor == nil {
		r.KernelsOnly = r.Router()
		return nil
	}
	plan, g, err := measure()
	if err != nil {
		return fmt.Errorf("our kernels alone (an engine opened with Options.NoVendor), the router having planned %s: %w", router.Vendor.Tag(), err)
	}
	r.KernelsOnly.Set(plan, g)
	return nil
}
