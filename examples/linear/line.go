package main

import (
	"fmt"

	"github.com/gemmroute/gemmroute/dispatch"
)

// checkedLine is what run prints for a projection whose GEMM matched the
// reference: its name, shape, and what its plan runs, as Explain names it
// (Plan.KernelName), with the split-K factor of a kernel of ours (a plan
// routed to cuBLASLt has an algorithm, which splits as it will, and no
// Kernel).
func checkedLine(name string, p *dispatch.Problem, plan dispatch.Plan) string {
	what := plan.KernelName()
	if plan.Vendor == nil {
		what += fmt.Sprintf(" split-K %d", plan.SplitK)
	}
	return fmt.Sprintf("%-8s M=%-5d N=%-6d K=%-6d checked  %s (%s)", name, p.M, p.N, p.K, what, plan.Level)
}
