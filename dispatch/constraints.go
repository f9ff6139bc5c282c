package dispatch

import (
	"cmp"
	"fmt"
	"math/bits"
	"slices"
	"strings"

	"github.com/gemmroute/gemmroute/kernels"
)

// rule names a constraint of the filter. Every rejection carries one, so
// that Explain and ErrNoKernel group rejections by rule rather than by text.
type rule uint8

// The rules, in the order checkKernel tests them.
const (
	ruleArch         rule = iota + 1 // the kernel has no code for the device's arch
	ruleDType                        // the kernel computes another dtype pair
	ruleScaling                      // e4m3: the kernel does not apply the problem's scaling mode
	ruleSmem                         // dynamic shared memory above the device's opt-in limit
	ruleAlignA                       // A's pointer less aligned than the kernel loads it
	ruleAlignB                       // B's pointer likewise
	ruleLDA                          // LDA·size not a multiple of the kernel's row alignment
	ruleLDB                          // LDB·size likewise
	ruleAlignD                       // D's pointer, LDC·size or N·size less aligned than the kernel stores D (TMA store)
	ruleKMultiple                    // K not a multiple of what the kernel steps by
	ruleNoPack                       // a repack kernel, for operands TMA reads as they are
	ruleIndexWidth                   // 32-bit offsets, problem of 2^31 elements or more
	ruleGridY                        // more M tiles than gridDim.y allows
	ruleSplitK                       // split-K factor outside the kernel's range
	ruleWorkspace                    // split-K workspace above the limit, or split-K not allowed
	ruleExperimental                 // experimental: only a table entry routes to it
)

// ruleText says what each rule rejects, read after "N kernels:".
var ruleText = [...]string{
	ruleArch:         "built for another arch",
	ruleDType:        "for another dtype pair",
	ruleScaling:      "take another e4m3 scaling mode",
	ruleSmem:         "need more shared memory than the device allows",
	ruleAlignA:       "need the A pointer more aligned",
	ruleAlignB:       "need the B pointer more aligned",
	ruleLDA:          "need LDA more aligned",
	ruleLDB:          "need LDB more aligned",
	ruleAlignD:       "need D (its pointer, LDC and N) more aligned",
	ruleKMultiple:    "need K to be a multiple of more",
	ruleNoPack:       "copy operands that TMA reads as they are (their kernels without the copy run them)",
	ruleIndexWidth:   "use 32-bit offsets, the problem needs 64",
	ruleGridY:        "need more M tiles than gridDim.y allows",
	ruleSplitK:       "have no such split-K factor",
	ruleWorkspace:    "need more split-K workspace than the plan may have",
	ruleExperimental: "are experimental: only a measured table entry routes to them",
}

// String says what the rule rejects, as Explain groups it.
func (r rule) String() string {
	if int(r) < len(ruleText) && ruleText[r] != "" {
		return ruleText[r]
	}
	return fmt.Sprintf("rule(%d)", uint8(r))
}

// rejection says why one kernel cannot run a problem: the rule it breaks
// and, in detail, the values that break it. The zero rejection is no
// rejection.
type rejection struct {
	kernel     string
	rule       rule
	detail     string
	otherTypes bool // the kernel computes another dtype pair than the problem
}

// ok reports whether no rule was broken.
func (rj rejection) ok() bool { return rj.rule == 0 }

// rank orders rejections within a group: kernels for the problem's dtypes
// first.
func (rj rejection) rank() int {
	if rj.otherTypes {
		return 1
	}
	return 0
}

// maxGridY is CUDA's limit on gridDim.y, which carries the M tiles.
const maxGridY = 65535

// checkKernel returns the zero rejection when kernel k may run problem p
// with the given split-K factor on dev within lim (defaults filled in), and
// otherwise the first rule it breaks. It allocates only to reject.
func checkKernel(k *kernels.KernelSpec, p *Problem, dev DeviceInfo, lim Limits, splitK int) rejection {
	t := p.kernelTypes()
	otherPair := k.In != t.In || k.Out != t.Out
	rj := func(r rule, format string, args ...any) rejection {
		return rejection{kernel: k.Name, rule: r, detail: fmt.Sprintf(format, args...), otherTypes: otherPair}
	}
	switch {
	case !k.RunsOn(dev.Arch):
		return rj(ruleArch, "built for %s..%s, device is %s", k.MinArch, archOrAny(k.MaxArch), dev.Arch)
	case otherPair:
		return rj(ruleDType, "computes %s→%s, problem is %s→%s", k.In, k.Out, t.In, t.Out)
	case !k.Computes(t):
		return rj(ruleScaling, "takes %v scaling, problem has %s", k.Scalings, t.Scaling)
	case k.SmemBytes > dev.SmemOptIn:
		return rj(ruleSmem, "needs %d B shared memory, device allows %d", k.SmemBytes, dev.SmemOptIn)
	case uintptr(p.A)%uintptr(k.PtrAlign) != 0:
		return rj(ruleAlignA, "A pointer %#x not %d-byte aligned", uintptr(p.A), k.PtrAlign)
	case uintptr(p.B)%uintptr(k.PtrAlign) != 0:
		return rj(ruleAlignB, "B pointer %#x not %d-byte aligned", uintptr(p.B), k.PtrAlign)
	case (p.LDA*p.Types.In.Size())%k.LDAlign != 0:
		return rj(ruleLDA, "LDA·%d = %d B not a multiple of %d", p.Types.In.Size(), p.LDA*p.Types.In.Size(), k.LDAlign)
	case (p.LDB*p.Types.In.Size())%k.LDAlign != 0:
		return rj(ruleLDB, "LDB·%d = %d B not a multiple of %d", p.Types.In.Size(), p.LDB*p.Types.In.Size(), k.LDAlign)
	case k.DPtrAlign > 0 && uintptr(p.D)%uintptr(k.DPtrAlign) != 0:
		return rj(ruleAlignD, "D pointer %#x not %d-byte aligned", uintptr(p.D), k.DPtrAlign)
	case k.DLDAlign > 0 && (p.LDC*p.Types.Out.Size())%k.DLDAlign != 0:
		return rj(ruleAlignD, "LDC·%d = %d B not a multiple of %d", p.Types.Out.Size(), p.LDC*p.Types.Out.Size(), k.DLDAlign)
	case k.DLDAlign > 0 && (p.N*p.Types.Out.Size())%k.DLDAlign != 0:
		// A TMA store writes whole 16-byte pieces of a row: on the H200 a
		// store map of N = 130 bf16 columns wrote columns 130…135 too.
		return rj(ruleAlignD, "N·%d = %d B not a multiple of %d (the store writes a row's last %d-byte piece whole)",
			p.Types.Out.Size(), p.N*p.Types.Out.Size(), k.DLDAlign, k.DLDAlign)
	case p.K%k.KMultiple != 0:
		return rj(ruleKMultiple, "K = %d not a multiple of %d", p.K, k.KMultiple)
	case p.K == 0 && k.TMA():
		return rj(ruleKMultiple, "K = 0: a tensor map needs K ≥ 1 (the kernel loads through TMA)")
	case k.TMAStore() && (p.M >= 1<<31 || p.N >= 1<<31):
		return rj(ruleIndexWidth, "M = %d, N = %d: D's tensor map takes 32-bit coordinates (below 2^31)", p.M, p.N)
	case k.IndexBits == 32 && p.elements() >= 1<<31:
		return rj(ruleIndexWidth, "32-bit offsets, problem spans %d elements (≥ 2^31)", p.elements())
	case k.Repack() && !needsPackAny(p):
		return rj(ruleNoPack, "A and B are 16-byte aligned with 16-byte pitches and K = %d a multiple of 8", p.K)
	case ceilDiv(p.M, k.TileM) > maxGridY:
		return rj(ruleGridY, "M = %d needs %d M tiles, more than gridDim.y allows (%d)", p.M, ceilDiv(p.M, k.TileM), maxGridY)
	case splitK < 1 || splitK > k.MaxSplitK:
		return rj(ruleSplitK, "split-K %d outside 1..%d", splitK, k.MaxSplitK)
	}
	if need := planWorkspace(k, p, max(splitK, tailParts(k, p, dev.SMs, lim.workspaceLimit())), dev.SMs, lim.WorkspaceBytes); need > 0 {
		what := fmt.Sprintf("split-K %d", splitK)
		switch {
		case k.Repack():
			what = "the operand copies"
		case k.StreamK():
			what = "stream-K"
		}
		switch {
		case lim.NoSplitK:
			return rj(ruleWorkspace, "%s needs %d B of workspace, and this plan may have none (Limits.NoSplitK: a stream being captured without a workspace)",
				what, need)
		case need > lim.WorkspaceBytes:
			return rj(ruleWorkspace, "%s needs %d B of workspace, %d B reserved per stream (Limits.WorkspaceBytes, an engine's Options.WorkspaceBytes)",
				what, need, lim.WorkspaceBytes)
		}
	}
	return rejection{}
}

func archOrAny(a Arch) string {
	if a == 0 {
		return "any"
	}
	return a.String()
}

// fitsAt reports whether kernel k runs p on dev within lim at split-K s:
// no more splits than k-tiles of K (one at least), and every constraint
// (checkKernel) holds.
func fitsAt(k *kernels.KernelSpec, p *Problem, dev DeviceInfo, lim Limits, s int) bool {
	return s <= max(1, ceilDiv(p.K, k.TileK)) && checkKernel(k, p, dev, lim, s).ok()
}

// filter returns the kernels of cat that the heuristic may pick for p on
// dev within lim without split-K (split-K 1) — not JIT-only, and not
// experimental unless experimental admits it (a measured class at its
// split: classSplit.experimental; nil admits none) — and a rejection for
// every kernel it leaves out.
func filter(cat *kernels.Catalog, p *Problem, dev DeviceInfo, lim Limits, experimental func(*kernels.KernelSpec) bool) (survivors []*kernels.KernelSpec, rejected []rejection) {
	for _, spec := range cat.Kernels() {
		k := cat.Kernel(spec.Name) // the catalog's own spec, which plans point at
		rj := checkKernel(k, p, dev, lim, 1)
		if rj.ok() && cat.JITOnly(k, dev.Arch) {
			rj = rejection{kernel: k.Name, rule: ruleArch, detail: fmt.Sprintf("%s reaches %s only through PTX JIT, and a native image covers it", k.Image, dev.Arch)}
		}
		if rj.ok() && k.Experimental && (experimental == nil || !experimental(k)) {
			rj = rejection{kernel: k.Name, rule: ruleExperimental, detail: "marked experimental in the manifest"}
		}
		if !rj.ok() {
			rejected = append(rejected, rj)
		} else {
			survivors = append(survivors, k)
		}
	}
	return survivors, rejected
}

// Bounds on the text writeRejections writes: a group of at most
// groupDetails kernels lists each on its own line, as long as the listing
// stays within maxDetails lines; a larger group names one example.
const (
	groupDetails = 3
	maxDetails   = 9
)

// writeRejections writes rejected (out of total kernels) grouped by rule in rule order, with counts: a header, one line per
// rule and at most maxDetails more, however large the catalog. Kernels for
// another dtype pair are only counted; within a group, kernels for the
// problem's dtypes come first (on another arch, they are the ones that
// matter).
func writeRejections(b *strings.Builder, rejected []rejection, total int) {
	if len(rejected) == 0 {
		return
	}
	var groups [len(ruleText)][]rejection
	for _, rj := range rejected {
		if int(rj.rule) < len(groups) {
			groups[rj.rule] = append(groups[rj.rule], rj)
		}
	}
	fmt.Fprintf(b, "rejected %d of %d kernels:\n", len(rejected), total)
	details := 0
	for r, g := range groups {
		if len(g) == 0 {
			continue
		}
		noun := "kernels"
		if len(g) == 1 {
			noun = "kernel"
		}
		slices.SortStableFunc(g, func(x, y rejection) int { return cmp.Compare(x.rank(), y.rank()) })
		switch {
		case rule(r) == ruleDType:
			fmt.Fprintf(b, "  %d %s: %s\n", len(g), noun, rule(r))
		case len(g) > groupDetails || details+len(g) > maxDetails:
			fmt.Fprintf(b, "  %d %s: %s, e.g. %s: %s\n", len(g), noun, rule(r), g[0].kernel, g[0].detail)
		default:
			fmt.Fprintf(b, "  %d %s: %s\n", len(g), noun, rule(r))
			for _, rj := range g {
				fmt.Fprintf(b, "    %s: %s\n", rj.kernel, rj.detail)
			}
			details += len(g)
		}
	}
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// alignClass is the largest power of two ≤ 256 dividing x (256 for x = 0).
func alignClass(x uint64) uint16 {
	if x == 0 {
		return 256
	}
	return uint16(1) << min(bits.TrailingZeros64(x), 8)
}
