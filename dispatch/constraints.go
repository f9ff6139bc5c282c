package dispatch

import (
	"fmt"
	"math/bits"

	"github.com/gemmroute/gemmroute/kernels"
)

// Rejection says why one kernel cannot run a problem.
type Rejection struct {
	Kernel string
	Reason string
}

// maxGridY is CUDA's limit on gridDim.y, which carries the M tiles.
const maxGridY = 65535

// CheckKernel returns "" when kernel k may run problem p with the given
// split-K factor on dev, and otherwise the rule it breaks.
func CheckKernel(k *kernels.KernelSpec, p *Problem, dev DeviceInfo, splitK int) string {
	switch {
	case !k.RunsOn(dev.Arch):
		return fmt.Sprintf("built for %s..%s, device is %s", k.MinArch, archOrAny(k.MaxArch), dev.Arch)
	case k.In != p.In || k.Out != p.Out:
		return fmt.Sprintf("computes %s→%s, problem is %s→%s", k.In, k.Out, p.In, p.Out)
	case k.SmemBytes > dev.SmemOptIn:
		return fmt.Sprintf("needs %d B shared memory, device allows %d", k.SmemBytes, dev.SmemOptIn)
	case uintptr(p.A)%uintptr(k.PtrAlign) != 0:
		return fmt.Sprintf("A pointer %#x not %d-byte aligned", uintptr(p.A), k.PtrAlign)
	case uintptr(p.B)%uintptr(k.PtrAlign) != 0:
		return fmt.Sprintf("B pointer %#x not %d-byte aligned", uintptr(p.B), k.PtrAlign)
	case (p.LDA*p.In.Size())%k.LDAlign != 0:
		return fmt.Sprintf("LDA·%d = %d B not a multiple of %d", p.In.Size(), p.LDA*p.In.Size(), k.LDAlign)
	case (p.LDB*p.In.Size())%k.LDAlign != 0:
		return fmt.Sprintf("LDB·%d = %d B not a multiple of %d", p.In.Size(), p.LDB*p.In.Size(), k.LDAlign)
	case p.K%k.KMultiple != 0:
		return fmt.Sprintf("K = %d not a multiple of %d", p.K, k.KMultiple)
	case k.IndexBits == 32 && p.Elements() >= 1<<31:
		return fmt.Sprintf("32-bit offsets, problem spans %d elements (≥ 2^31)", p.Elements())
	case ceilDiv(p.M, k.TileM) > maxGridY:
		return fmt.Sprintf("M = %d needs %d M tiles, more than gridDim.y allows (%d)", p.M, ceilDiv(p.M, k.TileM), maxGridY)
	case splitK < 1 || splitK > k.MaxSplitK:
		return fmt.Sprintf("split-K %d outside 1..%d", splitK, k.MaxSplitK)
	case splitK > 1 && dev.WorkspaceBytes > 0 && splitWorkspace(p, splitK) > dev.WorkspaceBytes:
		return fmt.Sprintf("split-K %d needs %d B of workspace, %d B reserved per stream (Options.WorkspaceBytes)",
			splitK, splitWorkspace(p, splitK), dev.WorkspaceBytes)
	}
	return ""
}

func archOrAny(a Arch) string {
	if a == 0 {
		return "any"
	}
	return a.String()
}

// Filter returns the kernels of cat that may run p on dev without split-K
// constraints (split-K 1), and the reason for every kernel it rejects.
func Filter(cat *kernels.Catalog, p *Problem, dev DeviceInfo) (survivors []*kernels.KernelSpec, rejected []Rejection) {
	for _, spec := range cat.Kernels() {
		k := cat.Kernel(spec.Name) // the catalog's own spec, which plans point at
		if why := CheckKernel(k, p, dev, 1); why != "" {
			rejected = append(rejected, Rejection{k.Name, why})
		} else {
			survivors = append(survivors, k)
		}
	}
	return survivors, rejected
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// alignClass is the largest power of two ≤ 256 dividing x (256 for x = 0).
func alignClass(x uint64) uint16 {
	if x == 0 {
		return 256
	}
	return uint16(1) << min(bits.TrailingZeros64(x), 8)
}
