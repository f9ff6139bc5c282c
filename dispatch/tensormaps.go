package dispatch

import "github.com/gemmroute/gemmroute/kernels"

// tensorMaps is what the launch of a TMA kernel encodes into its Params
// (gemm_params.h): maps of A and B in the input type, rows of their boxes
// (KernelSpec.TMABox), and, for a kernel that stores D through TMA, a map
// of D in the output type with box {columns, rows} (KernelSpec.TMAStoreBox;
// zero: no map of D, the kernel ignores tma_d).
type tensorMaps struct {
	in, out    kernels.DType
	boxA, boxB int
	boxD       [2]int
}

// launchMaps returns the tensor maps a launch of k's main kernel encodes,
// and false for a kernel that takes none (it is launched without encoding).
func launchMaps(k *kernels.KernelSpec) (tensorMaps, bool) {
	if !k.TMA() {
		return tensorMaps{}, false
	}
	return tensorMaps{in: k.In, out: k.Out, boxA: k.TMABox[0], boxB: k.TMABox[1], boxD: k.TMAStoreBox}, true
}
