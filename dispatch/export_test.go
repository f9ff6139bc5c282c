package dispatch

import "github.com/gemmroute/gemmroute/kernels"

// CheckKernel is checkKernel for the tests, the GPU tests of package
// dispatch_test among them: "" when k may run p with split-K splitK on dev,
// else the detail of the rule it breaks.
func CheckKernel(k *kernels.KernelSpec, p *Problem, dev DeviceInfo, splitK int) string {
	return checkKernel(k, p, dev, splitK).detail
}

// Elements is elements for the GPU tests.
func (p *Problem) Elements() int64 { return p.elements() }
