package dispatch

import "github.com/gemmroute/gemmroute/kernels"

// CheckKernel is checkKernel for the tests, the GPU tests of package
// dispatch_test among them: "" when k may run p with split-K splitK on the
// planner's device within its limits, else the detail of the rule it
// breaks.
func (pl *Planner) CheckKernel(k *kernels.KernelSpec, p *Problem, splitK int) string {
	return checkKernel(k, p, pl.dev, pl.lim, splitK).detail
}

// Elements is elements for the GPU tests.
func (p *Problem) Elements() int64 { return p.elements() }
